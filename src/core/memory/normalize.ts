// Dedupe folds case, whitespace and trailing punctuation, so "Use Bun." and "use bun" are one memory.
export function normalizeContent(content: string): string {
  return content
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s.!?;:,…。！？、]+$/u, "");
}

/** The dedupe key: project and normalized content, hashed for a compact index. */
export function contentKey(project: string | null, content: string): string {
  return Bun.hash(`${project ?? ""}\u0000${normalizeContent(content)}`).toString(36);
}
