// The validated configuration `signet hook` reuses (src/config/cache.ts): the same answer as a full
// parse, a miss on any change, never the client's token on disk, nothing created where no daemon ran.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/load";
import { daemonFiles } from "../../src/config/paths";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(yaml: string, withDaemonDir = true): string {
  const dir = mkdtempSync(join(tmpdir(), "signet-config-cache-"));
  dirs.push(dir);
  writeFileSync(join(dir, "agent.yaml"), yaml);
  if (withDaemonDir) mkdirSync(join(dir, ".daemon"), { mode: 0o700 });
  return dir;
}

describe("cached configuration", () => {
  test("answers what a full parse answers, from a 0600 file that never holds the token", () => {
    const dir = dataDir("daemon:\n  port: 4123\nagent:\n  id: cache-agent\n");
    const env = { SIGNET_PATH: dir, HOME: dir, SIGNET_TOKEN: "sgt_secret-from-the-environment" };
    const full = loadConfig({ env });
    const first = loadConfig({ env, cached: true });
    const cache = daemonFiles(dir).configCache;
    expect(existsSync(cache)).toBe(true);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(readFileSync(cache, "utf8")).not.toContain("sgt_secret");
    const second = loadConfig({ env, cached: true });
    for (const c of [first, second]) expect(c).toEqual({ ...full, auth: { ...full.auth, token: "sgt_secret-from-the-environment" } });
    // Another token, same cache entry: the token comes from the input, never from the file.
    expect(loadConfig({ env: { ...env, SIGNET_TOKEN: "sgt_other" }, cached: true }).auth.token).toBe("sgt_other");
  });

  test("a change to agent.yaml or the environment is a miss, and a bad value is still refused", () => {
    const dir = dataDir("daemon:\n  port: 4123\n");
    const env = { SIGNET_PATH: dir, HOME: dir };
    expect(loadConfig({ env, cached: true }).daemon.port).toBe(4123);
    writeFileSync(join(dir, "agent.yaml"), "daemon:\n  port: 4124\n");
    expect(loadConfig({ env, cached: true }).daemon.port).toBe(4124);
    expect(loadConfig({ env: { ...env, SIGNET_AGENT_ID: "other" }, cached: true }).agent.id).toBe("other");
    writeFileSync(join(dir, "agent.yaml"), "daemon:\n  port: 70000\n");
    expect(() => loadConfig({ env, cached: true })).toThrow(ConfigError);
  });

  test("a damaged cache is parsed around; without a .daemon directory nothing is written", () => {
    const dir = dataDir("agent:\n  id: a1\n");
    writeFileSync(daemonFiles(dir).configCache, "{not json", { mode: 0o600 });
    expect(loadConfig({ env: { SIGNET_PATH: dir, HOME: dir }, cached: true }).agent.id).toBe("a1");
    const bare = dataDir("agent:\n  id: a2\n", false);
    expect(loadConfig({ env: { SIGNET_PATH: bare, HOME: bare }, cached: true }).agent.id).toBe("a2");
    expect(existsSync(join(bare, ".daemon"))).toBe(false);
  });

  test("a cache that cannot be written (here its path is a directory; a full disk alike) leaves no temporary file behind", () => {
    const dir = dataDir("agent:\n  id: a3\n");
    mkdirSync(daemonFiles(dir).configCache);
    for (let i = 0; i < 3; i++) expect(loadConfig({ env: { SIGNET_PATH: dir, HOME: dir, SIGNET_AGENT_ID: `a${i}` }, cached: true }).agent.id).toBe(`a${i}`);
    expect(readdirSync(join(dir, ".daemon")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
