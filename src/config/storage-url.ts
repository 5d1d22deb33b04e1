// storage.url, shown: logs, errors, /health and `signet doctor` name the PostgreSQL store without its
// secrets; and checked: a URL Bun's client cannot read is refused naming the part at fault.

/** How a message names storage.url, which may come from either. */
export const STORAGE_URL_KEY = "storage.url (SIGNET_DATABASE_URL)";

/**
 * Query parameters that carry a secret. Bun's client reads `password` and `sslpassword` (the TLS
 * key's passphrase) from the URL, in any case; a parameter whose name says pass, secret, token or
 * key is hidden alike, so no future or mistyped one is shown.
 */
const SECRET_PARAMETER = /pass|secret|token|key/i;
const HIDDEN = "***";

/**
 * `postgres://user@host:5432/db?sslmode=require&password=***`: the URL to show. Its password is
 * left out, the values of the query parameters above are masked, and its fragment (which no client
 * reads) is dropped. The user name stays: PostgreSQL takes it as the role's name, never as a credential.
 */
export function displayedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${/^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? "postgres://"}…`;
  }
  u.password = "";
  u.hash = "";
  // Each pair as written but for the masked values, so what is shown is what was configured.
  if (u.search) u.search = u.search.slice(1).split("&").map(maskedPair).join("&");
  return u.toString();
}

function maskedPair(pair: string): string {
  const equals = pair.indexOf("=");
  if (equals < 0) return pair;
  const [name] = [...new URLSearchParams(pair).keys()];
  return name !== undefined && SECRET_PARAMETER.test(name) ? `${pair.slice(0, equals)}=${HIDDEN}` : pair;
}

/**
 * Why Bun's client cannot read `url` (it percent-decodes the user name, the password, the database
 * name and a socket directory given as the host, and stops at a bad escape with a bare "URI error"),
 * said as `<key> <url shown> is not a valid URL: …`; null when it can. The password is never quoted.
 */
export function postgresUrlProblem(url: string, key: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Bun's client reads some URLs the WHATWG parser refuses (no host: it takes localhost), and
    // says itself, without the URL's secrets, what is wrong with the others.
    return null;
  }
  const parts: { name: string; text: string; secret: boolean }[] = [
    { name: "user name", text: u.username, secret: false },
    { name: "password", text: u.password, secret: true },
    { name: "database name", text: u.pathname.slice(1), secret: false },
  ];
  if (/^%2f/i.test(u.hostname)) parts.push({ name: "host", text: u.hostname, secret: false });
  for (const part of parts) {
    const problem = escapeProblem(part.text, part.secret);
    if (problem) return `${key} ${displayedUrl(url)} is not a valid URL: its ${part.name} has ${problem}`;
  }
  return null;
}

/** What is wrong with the percent-escapes of `text`, quoting the bad one unless `secret`; null when it decodes. */
function escapeProblem(text: string, secret: boolean): string | null {
  try {
    decodeURIComponent(text);
    return null;
  } catch {
    const bad = /%(?![0-9a-f]{2}).{0,2}/is.exec(text);
    if (!bad) return "percent-escapes that are not UTF-8 text";
    return `a bad percent-escape${secret ? "" : ` (${bad[0]})`}: a % starts two hex digits, so write a % itself as %25`;
  }
}
