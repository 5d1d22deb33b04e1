// The API token a harness uses when its daemon needs one (team mode, or a daemon on another
// machine). `signet setup` keeps it in `<data dir>/.daemon/tokens/<harness>.token`, 0600 in the
// owner-only .daemon, and the harness's entries name that file (SIGNET_TOKEN_FILE, `--token-file`),
// never the token, so no harness config holds it. Beside it, `<harness>.json` records the id and
// agent of a token setup created, so a later setup can tell one still valid (kept) from one revoked,
// expired or bound to another agent (replaced), and --uninstall can revoke it.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { daemonDir } from "../config/paths";
import { lstatRefusingSymlink, makeOwnerOnlyDir, writeOwnerOnlyFile } from "../os/owner-only-files";
import type { HarnessName } from "./types";

/** What setup knows of a token it created (a token given to it has no record). */
interface TokenRecord {
  id: string;
  agentId: string;
}

export interface HarnessToken {
  token: string;
  record?: TokenRecord;
}

function tokensDir(dataDir: string): string {
  return join(daemonDir(dataDir), "tokens");
}

/** The file the entries name. */
export function harnessTokenPath(dataDir: string, harness: HarnessName): string {
  return join(tokensDir(dataDir), `${harness}.token`);
}

const recordPath = (dataDir: string, harness: HarnessName) => join(tokensDir(dataDir), `${harness}.json`);

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function parseRecord(text: string | undefined): TokenRecord | undefined {
  try {
    const data = JSON.parse(text ?? "") as Partial<TokenRecord>;
    return typeof data.id === "string" && typeof data.agentId === "string" ? { id: data.id, agentId: data.agentId } : undefined;
  } catch {
    return undefined;
  }
}

/** The harness's token and its record; undefined when there is no token file. */
export function readHarnessToken(dataDir: string, harness: HarnessName): HarnessToken | undefined {
  const token = readText(harnessTokenPath(dataDir, harness))?.trim();
  if (!token) return undefined;
  const record = parseRecord(readText(recordPath(dataDir, harness)));
  return record ? { token, record } : { token };
}

/** Writes the token file (and the record of a token setup created) owner-only, never through a link. */
export function writeHarnessToken(dataDir: string, harness: HarnessName, value: HarnessToken): void {
  for (const dir of [daemonDir(dataDir), tokensDir(dataDir)]) if (!lstatRefusingSymlink(dir)) makeOwnerOnlyDir(dir);
  writeOwnerOnlyFile(harnessTokenPath(dataDir, harness), `${value.token}\n`);
  if (value.record) writeOwnerOnlyFile(recordPath(dataDir, harness), `${JSON.stringify(value.record)}\n`);
  else rmSync(recordPath(dataDir, harness), { force: true });
}

/** Deletes the token file and its record; the record, if there was one, says which token to revoke. */
export function removeHarnessToken(dataDir: string, harness: HarnessName): HarnessToken | undefined {
  const held = readHarnessToken(dataDir, harness);
  rmSync(harnessTokenPath(dataDir, harness), { force: true });
  rmSync(recordPath(dataDir, harness), { force: true });
  return held;
}
