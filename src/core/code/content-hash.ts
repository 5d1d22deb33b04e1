// A code file's content hash as the index keeps it (SHA-256, hex): what a run records, and what
// its parsing threads, status and context compare a file's bytes with, all by this one definition.
export function contentHash(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}
