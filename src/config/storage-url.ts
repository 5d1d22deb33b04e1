// storage.url, shown: logs, errors and `signet doctor` name the PostgreSQL store without its password.
/** `postgres://user@host:5432/db`: the URL without its password, to show. */
export function displayedUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    return u.toString();
  } catch {
    return "postgres://…";
  }
}
