// The owner's credentials: two random values the daemon writes into `.daemon/` (mode 0600) at first
// start, readable only by the account that owns the data directory (docs/security.md).
// - admin.token: the owner's credential for routes that start processes or change the installation
//   (installing, changing and removing MCP servers). The CLI on this machine reads it by itself.
// - instance.key: proves identity both ways. A client checks that the daemon on the port holds the
//   key of its own data directory before sending anything (a challenge answered with an HMAC over
//   the nonce and the address the client called), and signet-mcp presents it when reporting its tool
//   calls, so only the owner's processes can report.
//
// Bun's own HMAC and the global crypto object, not node:crypto: loading node:crypto pulls in Node's
// stream machinery (about 35 ms on a busy machine), and `signet hook` runs at every prompt.
import { readFileSync } from "node:fs";

export const ADMIN_TOKEN_HEADER = "authorization";
export const INSTANCE_KEY_HEADER = "x-signet-instance-key";
/** GET /health?challenge=<nonce> answers `proof`: HMAC-SHA256(instance key, endpoint + "\n" + nonce), hex. */
export const CHALLENGE_PARAM = "challenge";

/** The file's trimmed content, or null when it is missing or unreadable (another account's data). */
export function readOwnerFile(path: string): string | null {
  try {
    const value = readFileSync(path, "utf8").trim();
    return value.length > 0 ? value : null;
  } catch {
    return null;
  }
}

/**
 * `host:port` as a URL spells it (lower case, IPv6 in brackets, `127.1` as `127.0.0.1`), the port
 * always written, so the daemon and the client name the same address the same way.
 */
export function proofEndpoint(host: string, port: number): string {
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `${new URL(`http://${bracketed}`).hostname}:${port}`;
}

/**
 * The answer to a challenge. It covers the endpoint (`proofEndpoint`) as well as the nonce: the
 * daemon signs the address it listens on, the client checks the address it called, so a relay on
 * another port, which can pass the nonce on and the answer back, cannot pass the check. An endpoint
 * holds no newline, so the signed text splits one way only.
 */
export function challengeProof(instanceKey: string, nonce: string, endpoint: string): string {
  return new Bun.CryptoHasher("sha256", instanceKey).update(`${endpoint}\n${nonce}`).digest("hex");
}

/** Constant-time comparison, so a caller cannot learn a credential byte by byte from timings. */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
