// The last validated configuration, remembered for `signet hook` (docs/hooks.md#latency) and the CLI's
// commands. A harness runs the hook at every prompt, and validating the configuration with zod is
// about 11 ms of a process that should take well under 60. The cache holds the schema's output for one exact input:
// agent.yaml's values, the environment's and the flags' (merged), and the binary that parsed them
// (its path, size and time), so any change to one of them is a miss and a full parse. The
// client-side token (`auth.token`, often from SIGNET_TOKEN) is neither part of the key nor stored:
// it is put back from the input. Best effort: a cache that cannot be read or written is ignored.
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { daemonFiles } from "./paths";
import type { ParsedConfig } from "./schema";

type Tree = Record<string, unknown>;

function withoutToken(tree: Tree): { rest: Tree; token: unknown } {
  const auth = tree.auth;
  if (typeof auth !== "object" || auth === null || Array.isArray(auth)) return { rest: tree, token: undefined };
  const { token, ...authRest } = auth as Tree;
  return { rest: { ...tree, auth: authRest }, token };
}

/** The input and the binary, written out whole: compared as text, with no digest to compute at each start. */
function keyOf(input: Tree): string {
  let binary = process.execPath;
  try {
    const s = statSync(binary);
    binary += `:${s.size}:${s.mtimeMs}`;
  } catch {
    // No stat: the path alone.
  }
  return JSON.stringify([binary, input]);
}

/** `parse(merged)`, or what it gave for the same input last time. */
export function cachedParse(dataDir: string, merged: Tree, parse: (merged: Tree) => ParsedConfig): ParsedConfig {
  const { rest, token } = withoutToken(merged);
  // A token of the wrong type must reach the schema, which names the problem.
  if (token !== undefined && (typeof token !== "string" || !/^\S+$/.test(token))) return parse(merged);
  const path = daemonFiles(dataDir).configCache;
  const key = keyOf(rest);
  const restore = (config: ParsedConfig): ParsedConfig => ({ ...config, auth: { ...config.auth, token: token as string | undefined } });
  try {
    const stored = JSON.parse(readFileSync(path, "utf8")) as { key?: unknown; config?: ParsedConfig };
    if (stored.key === key && stored.config) return restore(stored.config);
  } catch {
    // Missing or unreadable: parse.
  }
  const config = parse(merged);
  // Only into an existing .daemon (0700, made by the daemon); the loader creates no directories.
  if (existsSync(dirname(path))) {
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify({ key, config: { ...config, auth: { ...config.auth, token: undefined } } }), { mode: 0o600, flag: "wx" });
      renameSync(tmp, path);
    } catch {
      // The directory is read-only, or the disk full (a half-written file is left: take it away); the next run parses again.
      try {
        unlinkSync(tmp);
      } catch {
        // never made
      }
    }
  }
  return config;
}
