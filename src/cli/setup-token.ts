// The token `signet setup` gives a harness whose daemon needs one (docs/security.md#tokens). A
// daemon on this machine in team mode: an agent token, created through the daemon with the owner's
// admin token and bound to the store's agent, kept while it stays valid. A daemon on another
// machine (always team or hybrid, where a remote peer needs a token): the token the user configured
// (SIGNET_TOKEN, SIGNET_TOKEN_FILE, auth.token), since only that daemon's owner can make one. Either
// way it goes into a 0600 file the entries name (src/harness/token-file.ts), never into their config.
import { statSync } from "node:fs";
import { isLoopbackHost } from "../config/daemon-url";
import type { Config } from "../config/schema";
import { harnessTokenPath, readHarnessToken, removeHarnessToken, writeHarnessToken } from "../harness/token-file";
import type { HarnessName } from "../harness/types";
import { clientFor } from "./context";

/** What the harness gets: no token, one setup makes (`mint`), the one configured (`given`), or none though it needs one. */
export type TokenNeed =
  | { kind: "none" }
  | { kind: "mint"; file: string; agentId: string }
  | { kind: "given"; file: string; token: string }
  | { kind: "missing"; url: string; agentId: string };

/** What setup did about the token: the `token` of its output. */
export interface TokenOutcome {
  file: string;
  /**
   * created: a new token; replaced: a new one for one no longer valid or bound to another agent;
   * kept: the valid one there; stored / unchanged: the configured one; deleted: --uninstall.
   */
  action: "created" | "replaced" | "kept" | "stored" | "unchanged" | "deleted";
  /** The token setup made or kept, or the one --uninstall deleted. */
  id?: string;
  agentId?: string;
  /** The token revoked: the one replaced while still live, or the one deleted. */
  revoked?: string;
}

/**
 * Whether the harness needs a token, decided without a request: by where the daemon is (`url`, the
 * configured one) and, on this machine, by `auth.mode` (hybrid trusts a loopback peer).
 */
export function tokenNeed(config: Config, harness: HarnessName, agentId: string): TokenNeed {
  const file = harnessTokenPath(config.dataDir, harness);
  const url = config.daemon.url;
  if (!isLoopbackHost(new URL(url).hostname)) {
    const token = config.auth.token;
    return token === undefined ? { kind: "missing", url, agentId } : { kind: "given", file, token };
  }
  return config.auth.mode === "team" ? { kind: "mint", file, agentId } : { kind: "none" };
}

export function missingTokenNote(need: Extract<TokenNeed, { kind: "missing" }>): string {
  return (
    `the daemon at ${need.url} is on another machine, where every request needs an API token: ` +
    `create one there (\`signet token create --role agent --agent ${need.agentId}\`), then run this setup again with it in SIGNET_TOKEN; ` +
    "setup keeps it in a 0600 file the entries name"
  );
}

const ownerOnly = (file: string) => (statSync(file).mode & 0o777) === 0o600;

/**
 * Makes the token file hold what `need` asks for. `config` reaches the running daemon (for `mint`):
 * a token setup created before is kept while the daemon lists it unrevoked, unexpired and bound to
 * the same agent; otherwise a new one is created and the old one, if still live, revoked. One request
 * to keep a token, two or three to replace one. `notes` hears what could not be done.
 */
export async function ensureToken(
  need: Extract<TokenNeed, { kind: "mint" | "given" }>,
  config: Config,
  harness: HarnessName,
  notes: string[],
): Promise<TokenOutcome> {
  const held = readHarnessToken(config.dataDir, harness);
  if (need.kind === "given") {
    if (held?.token === need.token && !held.record && ownerOnly(need.file)) return { file: need.file, action: "unchanged" };
    writeHarnessToken(config.dataDir, harness, { token: need.token });
    return { file: need.file, action: "stored" };
  }
  const client = clientFor(config, "setup");
  const record = held?.record;
  const listed = record ? (await client.tokens.list()).tokens.find((t) => t.id === record.id) : undefined;
  const live = listed !== undefined && listed.revokedAt === null && (listed.expiresAt === null || Date.parse(listed.expiresAt) > Date.now());
  if (held && live && listed.agentId === need.agentId) {
    // A file whose mode was loosened would be refused by the harness's signet (SIGNET_TOKEN_FILE): written again.
    if (!ownerOnly(need.file)) writeHarnessToken(config.dataDir, harness, held);
    return { file: need.file, action: "kept", id: listed.id, agentId: need.agentId };
  }
  const made = await client.tokens.create({ role: "agent", agentId: need.agentId, name: `signet setup --harness ${harness}` });
  writeHarnessToken(config.dataDir, harness, { token: made.token, record: { id: made.id, agentId: need.agentId } });
  const outcome: TokenOutcome = { file: need.file, action: held ? "replaced" : "created", id: made.id, agentId: need.agentId };
  if (live) {
    try {
      await client.tokens.revoke(listed.id);
      outcome.revoked = listed.id;
    } catch (err) {
      notes.push(`the token ${listed.id} this harness used before could not be revoked (${(err as Error).message}): revoke it with \`signet token revoke ${listed.id}\``);
    }
  }
  return outcome;
}

/**
 * --uninstall: deletes the harness's token file, and revokes the token setup created for it through
 * the daemon when one answers (none is started for it). Undefined when there was no token file.
 */
export async function dropToken(config: () => Config, harness: HarnessName, dataDir: string, notes: string[]): Promise<TokenOutcome | undefined> {
  const file = harnessTokenPath(dataDir, harness);
  const held = removeHarnessToken(dataDir, harness);
  if (!held) return undefined;
  const id = held.record?.id;
  if (id === undefined) return { file, action: "deleted" };
  try {
    const c = config();
    await clientFor({ ...c, daemon: { ...c.daemon, autostart: false } }, "setup").tokens.revoke(id);
    return { file, action: "deleted", id, revoked: id };
  } catch (err) {
    notes.push(`the token file is deleted, but its token ${id} could not be revoked (${(err as Error).message}): revoke it with \`signet token revoke ${id}\``);
    return { file, action: "deleted", id };
  }
}
