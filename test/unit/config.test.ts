// src/config/load.ts: defaults (docs/config.md), precedence flags > env > agent.yaml > defaults, validation
// errors that name the key, and daemon.url derivation. Every test uses a temporary SIGNET_PATH and an
// explicit `env`, never process.env or the real ~/.agents.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig, mergeLayers, resolveDataDir } from "../../src/config/load";
import { configPath } from "../../src/config/paths";

const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh data directory, optionally with an agent.yaml. */
function dataDir(yaml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "signet-config-test-"));
  dirs.push(dir);
  if (yaml !== undefined) writeFileSync(join(dir, "agent.yaml"), yaml);
  return dir;
}

/** loadConfig with an isolated environment: SIGNET_PATH and HOME point at a temp dir. */
function load(opts: { yaml?: string; env?: Record<string, string>; flags?: Record<string, unknown> } = {}) {
  const dir = dataDir(opts.yaml);
  return loadConfig({ env: { SIGNET_PATH: dir, HOME: dir, ...opts.env }, flags: opts.flags });
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}

describe("defaults (docs/config.md)", () => {
  const config = load();

  test("daemon.port / daemon.bind default to 3850 / 127.0.0.1", () => {
    expect(config.daemon.port).toBe(3850);
    expect(config.daemon.bind).toBe("127.0.0.1");
  });

  test("daemon.url defaults to http://127.0.0.1:3850", () => {
    expect(config.daemon.url).toBe("http://127.0.0.1:3850");
  });

  test("daemon.autostart defaults to true", () => {
    expect(config.daemon.autostart).toBe(true);
  });

  test("daemon.requestTimeoutMs defaults to 10 s", () => {
    expect(config.daemon.requestTimeoutMs).toBe(10_000);
  });

  test("daemon.maxBodyBytes defaults to 1 MiB", () => {
    expect(config.daemon.maxBodyBytes).toBe(1024 * 1024);
  });

  test("agent.id defaults to 'default'", () => {
    expect(config.agent.id).toBe("default");
  });

  test("auth.mode defaults to local and auth.token to none", () => {
    expect(config.auth.mode).toBe("local");
    expect(config.auth.token).toBeUndefined();
  });

  test("embedding.provider defaults to builtin, model/baseUrl/dimensions unset", () => {
    expect(config.embedding.provider).toBe("builtin");
    expect(config.embedding.model).toBeUndefined();
    expect(config.embedding.baseUrl).toBeUndefined();
    expect(config.embedding.dimensions).toBeUndefined();
  });

  test("llm.{provider, model, baseUrl} default to none", () => {
    expect(config.llm.provider).toBeUndefined();
    expect(config.llm.model).toBeUndefined();
    expect(config.llm.baseUrl).toBeUndefined();
  });

  test("bridge defaults 60000 / 600000 / 16 and 16 MiB messages", () => {
    expect(config.bridge).toEqual({ callTimeoutMs: 60_000, idleCloseMs: 600_000, maxServers: 16, maxMessageBytes: 16 * 1024 * 1024 });
  });

  test("daemon.allowedHosts and daemon.allowedOrigins default to none", () => {
    expect(config.daemon.allowedHosts).toEqual([]);
    expect(config.daemon.allowedOrigins).toEqual([]);
  });

  test("analytics defaults true / 30 / 1000 and no alerts", () => {
    expect(config.analytics.trackAgentCalls).toBe(true);
    expect(config.analytics.retentionDays).toBe(30);
    expect(config.analytics.flushMs).toBe(1000);
    expect(config.analytics.alerts).toEqual({});
  });

  test("secrets.provider defaults to local", () => {
    expect(config.secrets.provider).toBe("local");
  });

  test("acp.allowedOrigins defaults to none", () => {
    expect(config.acp.allowedOrigins).toEqual([]);
  });

  test("hooks.sessionStartBudgetTokens defaults to 2000", () => {
    expect(config.hooks.sessionStartBudgetTokens).toBe(2000);
  });

  test("no agents are shared by default", () => {
    expect(config.agents).toEqual({});
  });

  test("dataDir is SIGNET_PATH", () => {
    const dir = dataDir();
    expect(loadConfig({ env: { SIGNET_PATH: dir, HOME: "/nonexistent-home" } }).dataDir).toBe(dir);
  });

  test("an empty agent.yaml gives the defaults", () => {
    const c = load({ yaml: "" });
    expect(c.daemon.port).toBe(3850);
    expect(c.agent.id).toBe("default");
  });

  test("an agent.yaml holding only a comment gives the defaults", () => {
    expect(load({ yaml: "# nothing here\n" }).daemon.port).toBe(3850);
  });
});

describe("data directory", () => {
  test("defaults to $HOME/.agents when SIGNET_PATH is unset", () => {
    expect(resolveDataDir({ HOME: "/tmp/some-home" })).toBe(join("/tmp/some-home", ".agents"));
  });

  test("a leading ~ or ~/ in SIGNET_PATH is HOME (no shell expanded it: a harness entry, a unit file); ~user is refused", () => {
    const home = "/tmp/some-home";
    expect(resolveDataDir({ HOME: home, SIGNET_PATH: "~/.agents" })).toBe(join(home, ".agents"));
    expect(resolveDataDir({ HOME: home, SIGNET_PATH: " ~/work/agents/ " })).toBe(join(home, "work", "agents"));
    expect(resolveDataDir({ HOME: home, SIGNET_PATH: "~" })).toBe(home);
    // Only a leading one: elsewhere a ~ is a name like any other.
    expect(resolveDataDir({ HOME: home, SIGNET_PATH: "/srv/~/agents" })).toBe("/srv/~/agents");
    expect(() => resolveDataDir({ HOME: home, SIGNET_PATH: "~alice/.agents" })).toThrow(ConfigError);
    expect(() => resolveDataDir({ HOME: home, SIGNET_PATH: "~alice/.agents" })).toThrow(
      'SIGNET_PATH="~alice/.agents": only a leading ~ or ~/ (your home, /tmp/some-home) is expanded, not ~user; give the directory\'s full path',
    );
    expect(loadConfig({ env: { HOME: home, SIGNET_PATH: "~/.agents" } }).dataDir).toBe(join(home, ".agents"));
  });

  test("SIGNET_PATH wins over HOME", () => {
    expect(resolveDataDir({ HOME: "/tmp/some-home", SIGNET_PATH: "/tmp/elsewhere" })).toBe("/tmp/elsewhere");
  });

  test("a blank SIGNET_PATH falls back to HOME", () => {
    expect(resolveDataDir({ HOME: "/tmp/some-home", SIGNET_PATH: "   " })).toBe(join("/tmp/some-home", ".agents"));
  });

  test("agent.yaml lives in the data directory", () => {
    expect(configPath("/tmp/d")).toBe(join("/tmp/d", "agent.yaml"));
  });

  test("loadConfig without SIGNET_PATH uses HOME/.agents (never the real home)", () => {
    const home = dataDir();
    const c = loadConfig({ env: { HOME: home } });
    expect(c.dataDir).toBe(join(home, ".agents"));
  });
});

describe("precedence: flags > env > agent.yaml > defaults", () => {
  const yaml = [
    "daemon:",
    "  port: 4001",
    "  bind: 127.0.0.2",
    "  autostart: false",
    "  maxBodyBytes: 4096",
    "agent:",
    "  id: from-yaml",
    "auth:",
    "  token: yaml-token",
    "acp:",
    "  allowedOrigins: [https://yaml.example]",
    "bridge:",
    "  maxServers: 4",
    "hooks:",
    "  sessionStartBudgetTokens: 500",
    "",
  ].join("\n");

  test("agent.yaml overrides defaults", () => {
    const c = load({ yaml });
    expect(c.daemon.port).toBe(4001);
    expect(c.daemon.bind).toBe("127.0.0.2");
    expect(c.daemon.autostart).toBe(false);
    expect(c.daemon.maxBodyBytes).toBe(4096);
    expect(c.agent.id).toBe("from-yaml");
    expect(c.auth.token).toBe("yaml-token");
    expect(c.acp.allowedOrigins).toEqual(["https://yaml.example"]);
    expect(c.bridge.maxServers).toBe(4);
    // Keys the file does not mention keep their defaults.
    expect(c.bridge.callTimeoutMs).toBe(60_000);
    expect(c.hooks.sessionStartBudgetTokens).toBe(500);
  });

  test("environment overrides agent.yaml", () => {
    const c = load({
      yaml,
      env: {
        SIGNET_PORT: "4002",
        SIGNET_BIND: "127.0.0.3",
        SIGNET_AUTOSTART: "true",
        SIGNET_AGENT_ID: "from-env",
        SIGNET_TOKEN: "env-token",
        SIGNET_ACP_ALLOWED_ORIGINS: "https://a.example, https://b.example",
      },
    });
    expect(c.daemon.port).toBe(4002);
    expect(c.daemon.bind).toBe("127.0.0.3");
    expect(c.daemon.autostart).toBe(true);
    expect(c.agent.id).toBe("from-env");
    expect(c.auth.token).toBe("env-token");
    expect(c.acp.allowedOrigins).toEqual(["https://a.example", "https://b.example"]);
    // The environment has no say on this key: agent.yaml still rules.
    expect(c.daemon.maxBodyBytes).toBe(4096);
  });

  test("SIGNET_AUTH_MODE overrides auth.mode", () => {
    const c = load({ yaml: "auth:\n  mode: local\n", env: { SIGNET_AUTH_MODE: "team" } });
    expect(c.auth.mode).toBe("team");
  });

  test("flags override environment and agent.yaml", () => {
    const c = load({
      yaml,
      env: { SIGNET_PORT: "4002", SIGNET_AGENT_ID: "from-env" },
      flags: { daemon: { port: 4003 }, agent: { id: "from-flag" } },
    });
    expect(c.daemon.port).toBe(4003);
    expect(c.agent.id).toBe("from-flag");
    // Sibling keys of the flag's section are merged, not replaced.
    expect(c.daemon.bind).toBe("127.0.0.2");
    expect(c.daemon.maxBodyBytes).toBe(4096);
  });

  test("an undefined flag never hides a lower layer", () => {
    const c = load({ yaml, flags: { daemon: { port: undefined }, agent: { id: undefined } } });
    expect(c.daemon.port).toBe(4001);
    expect(c.agent.id).toBe("from-yaml");
  });

  test("blank environment values are treated as unset", () => {
    const c = load({ yaml, env: { SIGNET_PORT: "", SIGNET_AGENT_ID: "  ", SIGNET_AUTOSTART: "" } });
    expect(c.daemon.port).toBe(4001);
    expect(c.agent.id).toBe("from-yaml");
    expect(c.daemon.autostart).toBe(false);
  });

  test("mergeLayers deep-merges and skips undefined", () => {
    expect(mergeLayers({ a: { b: 1, c: 2 }, d: 1 }, { a: { b: 3, c: undefined }, d: undefined })).toEqual({
      a: { b: 3, c: 2 },
      d: 1,
    });
  });

  test("agents.<id>.readPolicy is read from agent.yaml with a private default", () => {
    const c = load({ yaml: "agents:\n  shared-a:\n    readPolicy: shared\n  b: {}\n" });
    expect(c.agents["shared-a"]?.readPolicy).toBe("shared");
    expect(c.agents.b?.readPolicy).toBe("private");
  });

  test("analytics.alerts and embedding settings from agent.yaml", () => {
    const c = load({
      yaml: "analytics:\n  alerts:\n    github: 500\n    github/search: 250\nembedding:\n  provider: ollama\n  model: nomic\n  baseUrl: http://127.0.0.1:11434\n  dimensions: 768\n",
    });
    expect(c.analytics.alerts).toEqual({ github: 500, "github/search": 250 });
    expect(c.embedding).toEqual({ provider: "ollama", model: "nomic", baseUrl: "http://127.0.0.1:11434", dimensions: 768 });
  });
});

describe("errors name the key", () => {
  test("bad YAML is a ConfigError naming the file", () => {
    const err = configError(() => load({ yaml: "daemon: [unclosed\n  port: 1" }));
    expect(err.message).toContain("agent.yaml");
    expect(err.message).toMatch(/yaml/i);
  });

  test("a YAML list at the top level is a ConfigError", () => {
    const err = configError(() => load({ yaml: "- a\n- b\n" }));
    expect(err.message).toContain("agent.yaml");
  });

  test("a YAML scalar at the top level is a ConfigError", () => {
    configError(() => load({ yaml: "just a string\n" }));
  });

  test("an unknown top-level key is named", () => {
    const err = configError(() => load({ yaml: "deamon:\n  port: 1\n" }));
    expect(err.message).toContain("deamon");
    expect(err.message).toMatch(/unknown/i);
  });

  test("an unknown nested key is named with its full path", () => {
    const err = configError(() => load({ yaml: "daemon:\n  prot: 4000\n" }));
    expect(err.message).toContain("daemon.prot");
  });

  test("unknown keys in every section are rejected", () => {
    for (const section of ["agent", "auth", "embedding", "llm", "bridge", "analytics", "secrets", "acp", "hooks"]) {
      const err = configError(() => load({ yaml: `${section}:\n  bogusKey: 1\n` }));
      expect(err.message).toContain(`${section}.bogusKey`);
    }
  });

  test("an unknown key under agents.<id> is named", () => {
    const err = configError(() => load({ yaml: "agents:\n  a:\n    writePolicy: shared\n" }));
    expect(err.message).toContain("writePolicy");
  });

  const wrongTypes: [string, string][] = [
    ["daemon:\n  port: abc\n", "daemon.port"],
    ["daemon:\n  port: 0\n", "daemon.port"],
    ["daemon:\n  port: 65536\n", "daemon.port"],
    ["daemon:\n  port: 3850.5\n", "daemon.port"],
    ["daemon:\n  bind: 12\n", "daemon.bind"],
    ["daemon:\n  autostart: maybe\n", "daemon.autostart"],
    ["daemon:\n  maxBodyBytes: -1\n", "daemon.maxBodyBytes"],
    ["agent:\n  id: 'has spaces'\n", "agent.id"],
    ["auth:\n  mode: open\n", "auth.mode"],
    ["embedding:\n  provider: magic\n", "embedding.provider"],
    ["embedding:\n  dimensions: lots\n", "embedding.dimensions"],
    ["llm:\n  provider: 42\n", "llm.provider"],
    ["bridge:\n  callTimeoutMs: soon\n", "bridge.callTimeoutMs"],
    ["bridge:\n  maxServers: 0\n", "bridge.maxServers"],
    ["analytics:\n  trackAgentCalls: 'yes'\n", "analytics.trackAgentCalls"],
    ["analytics:\n  retentionDays: -5\n", "analytics.retentionDays"],
    ["analytics:\n  alerts:\n    github: slow\n", "analytics.alerts.github"],
    ["secrets:\n  provider: vault\n", "secrets.provider"],
    ["acp:\n  allowedOrigins: https://x.example\n", "acp.allowedOrigins"],
    ["hooks:\n  sessionStartBudgetTokens: many\n", "hooks.sessionStartBudgetTokens"],
    ["agents:\n  a:\n    readPolicy: public\n", "agents.a.readPolicy"],
    ["bridge: 5\n", "bridge"],
    ["hooks: x\n", "hooks"],
  ];
  for (const [yaml, key] of wrongTypes) {
    test(`wrong type or value for ${key} is named`, () => {
      const err = configError(() => load({ yaml }));
      expect(err.message).toContain(key);
    });
  }

  // Sections the environment also feeds (daemon, agent, auth, acp) must still reject a non-mapping
  // value in agent.yaml instead of silently falling back to defaults.
  for (const [yaml, key] of [
    ["daemon: 5\n", "daemon"],
    ["agent: someone\n", "agent"],
    ["auth: [1]\n", "auth"],
    ["acp: 7\n", "acp"],
  ] as const) {
    test(`a non-mapping value for section ${key} is rejected, not ignored`, () => {
      const err = configError(() => load({ yaml }));
      expect(err.message).toContain(key);
    });
  }

  // A value fetch() cannot use would otherwise start, then fail every recall with "fetch() URL is invalid".
  for (const section of ["llm", "embedding"]) {
    test(`${section}.baseUrl must be an http(s) URL, named with the fix`, () => {
      for (const value of ["not a url at all", "127.0.0.1:47451", "localhost:11434", "ftp://127.0.0.1:11434", "file:///tmp/x"]) {
        const err = configError(() => load({ yaml: `${section}:\n  baseUrl: "${value}"\n` }));
        expect(err.message).toContain(`${section}.baseUrl: must be an http:// or https:// URL`);
      }
      for (const value of ["http://127.0.0.1:11434", "https://api.openai.com/v1", "http://user:pass@proxy.internal:8080"]) {
        expect(load({ yaml: `${section}:\n  baseUrl: "${value}"\n` })[section as "llm"].baseUrl).toBe(value);
      }
    });
  }

  test("an invalid agent id as a key of agents is rejected", () => {
    configError(() => load({ yaml: "agents:\n  'bad id':\n    readPolicy: shared\n" }));
  });

  test("SIGNET_PORT that is not a number is rejected, naming SIGNET_PORT", () => {
    for (const v of ["abc", "38.5", "-1", "0x10", "3850abc", "1e3"]) {
      const err = configError(() => load({ env: { SIGNET_PORT: v } }));
      expect(err.message).toContain("SIGNET_PORT");
    }
  });

  test("SIGNET_PORT out of range is rejected naming daemon.port", () => {
    for (const v of ["0", "65536", "99999"]) {
      const err = configError(() => load({ env: { SIGNET_PORT: v } }));
      expect(err.message).toContain("daemon.port");
    }
  });

  test("SIGNET_PORT with surrounding whitespace is accepted", () => {
    expect(load({ env: { SIGNET_PORT: " 4100 " } }).daemon.port).toBe(4100);
  });

  test("SIGNET_AGENT_ID that is not a valid id is rejected naming agent.id", () => {
    const err = configError(() => load({ env: { SIGNET_AGENT_ID: "no spaces allowed" } }));
    expect(err.message).toContain("agent.id");
  });

  test("SIGNET_AUTH_MODE with an unknown mode is rejected naming auth.mode", () => {
    const err = configError(() => load({ env: { SIGNET_AUTH_MODE: "open" } }));
    expect(err.message).toContain("auth.mode");
  });

  test("a flag of the wrong type is rejected naming the key", () => {
    const err = configError(() => load({ flags: { daemon: { port: "not-a-port" } } }));
    expect(err.message).toContain("daemon.port");
  });
});

describe("SIGNET_AUTOSTART", () => {
  for (const v of ["1", "true", "TRUE", "yes", "Yes", "on", " true "]) {
    test(`${JSON.stringify(v)} is true`, () => {
      expect(load({ yaml: "daemon:\n  autostart: false\n", env: { SIGNET_AUTOSTART: v } }).daemon.autostart).toBe(true);
    });
  }
  for (const v of ["0", "false", "FALSE", "no", "off", "Off"]) {
    test(`${JSON.stringify(v)} is false`, () => {
      expect(load({ env: { SIGNET_AUTOSTART: v } }).daemon.autostart).toBe(false);
    });
  }
  for (const v of ["maybe", "2", "enabled", "t"]) {
    test(`${JSON.stringify(v)} is rejected naming SIGNET_AUTOSTART`, () => {
      const err = configError(() => load({ env: { SIGNET_AUTOSTART: v } }));
      expect(err.message).toContain("SIGNET_AUTOSTART");
    });
  }
});

describe("daemon.url derivation", () => {
  test("SIGNET_DAEMON_URL is used, normalized", () => {
    expect(load({ env: { SIGNET_DAEMON_URL: "http://127.0.0.1:9999/" } }).daemon.url).toBe("http://127.0.0.1:9999");
    expect(load({ env: { SIGNET_DAEMON_URL: "HTTPS://Example.COM" } }).daemon.url).toBe("https://example.com");
  });

  test("SIGNET_DAEMON_URL wins over SIGNET_HOST + SIGNET_PORT and agent.yaml", () => {
    const c = load({
      yaml: "daemon:\n  url: http://127.0.0.1:1111\n",
      env: { SIGNET_DAEMON_URL: "http://10.0.0.5:2222", SIGNET_HOST: "10.0.0.6", SIGNET_PORT: "3333" },
    });
    expect(c.daemon.url).toBe("http://10.0.0.5:2222");
  });

  test("an invalid SIGNET_DAEMON_URL is a ConfigError, never a silent fallback", () => {
    for (const bad of ["http://127.0.0.1:3850/api", "127.0.0.1:3850", "http://u:p@h", "ftp://h", "http://$(id)"]) {
      const err = configError(() => load({ env: { SIGNET_DAEMON_URL: bad } }));
      expect(err.message).toContain(JSON.stringify(bad));
    }
  });

  test("SIGNET_HOST + SIGNET_PORT make the url", () => {
    expect(load({ env: { SIGNET_HOST: "10.1.2.3", SIGNET_PORT: "4444" } }).daemon.url).toBe("http://10.1.2.3:4444");
  });

  test("SIGNET_HOST alone uses the configured port", () => {
    expect(load({ env: { SIGNET_HOST: "10.1.2.3" } }).daemon.url).toBe("http://10.1.2.3:3850");
    expect(load({ yaml: "daemon:\n  port: 4001\n", env: { SIGNET_HOST: "myhost" } }).daemon.url).toBe("http://myhost:4001");
  });

  test("SIGNET_PORT alone uses 127.0.0.1", () => {
    expect(load({ env: { SIGNET_PORT: "4555" } }).daemon.url).toBe("http://127.0.0.1:4555");
  });

  test("SIGNET_HOST + SIGNET_PORT win over daemon.url in agent.yaml (env > file)", () => {
    const c = load({ yaml: "daemon:\n  url: http://127.0.0.1:1111\n", env: { SIGNET_HOST: "10.9.9.9", SIGNET_PORT: "2222" } });
    expect(c.daemon.url).toBe("http://10.9.9.9:2222");
  });

  test("an invalid SIGNET_HOST is a ConfigError", () => {
    configError(() => load({ env: { SIGNET_HOST: "evil;rm -rf" } }));
    configError(() => load({ env: { SIGNET_HOST: "$(whoami)" } }));
  });

  test("daemon.url in agent.yaml is used and validated", () => {
    expect(load({ yaml: "daemon:\n  url: http://127.0.0.1:1111\n" }).daemon.url).toBe("http://127.0.0.1:1111");
    configError(() => load({ yaml: "daemon:\n  url: http://127.0.0.1:1111/path\n" }));
  });

  test("a daemon.url flag wins over everything and is validated", () => {
    const c = load({ env: { SIGNET_DAEMON_URL: "http://10.0.0.5:2222" }, flags: { daemon: { url: "http://127.0.0.1:7777" } } });
    expect(c.daemon.url).toBe("http://127.0.0.1:7777");
    configError(() => load({ flags: { daemon: { url: "http://127.0.0.1:7777?x=1" } } }));
  });

  test("derived from bind and port when nothing else is given", () => {
    expect(load({ yaml: "daemon:\n  bind: 127.0.0.5\n  port: 4010\n" }).daemon.url).toBe("http://127.0.0.5:4010");
    expect(load({ env: { SIGNET_BIND: "127.0.0.7" } }).daemon.url).toBe("http://127.0.0.7:3850");
  });

  test("a wildcard bind is reached on 127.0.0.1", () => {
    expect(load({ yaml: "daemon:\n  bind: 0.0.0.0\n" }).daemon.url).toBe("http://127.0.0.1:3850");
    expect(load({ yaml: "daemon:\n  bind: '::'\n" }).daemon.url).toBe("http://127.0.0.1:3850");
  });

  test("an IPv6 bind is bracketed", () => {
    expect(load({ yaml: "daemon:\n  bind: '::1'\n  port: 4020\n" }).daemon.url).toBe("http://[::1]:4020");
  });

  test("a bind/port flag changes the derived url", () => {
    expect(load({ flags: { daemon: { port: 4999 } } }).daemon.url).toBe("http://127.0.0.1:4999");
  });
});

describe("daemon.url: the data directory's running daemon (.daemon/daemon.pid)", () => {
  /** A data directory whose record names `pid` running at `url`. */
  function recorded(pid: number, url: string, port: number, yaml?: string): string {
    const dir = dataDir(yaml);
    mkdirSync(join(dir, ".daemon"), { mode: 0o700 });
    writeFileSync(join(dir, ".daemon", "daemon.pid"), JSON.stringify({ pid, port, url, startedAt: "2026-01-01T00:00:00.000Z", version: "0" }));
    return dir;
  }
  const loadIn = (dir: string, env: Record<string, string> = {}, running?: boolean) =>
    loadConfig({ env: { SIGNET_PATH: dir, HOME: dir, ...env }, ...(running === undefined ? {} : { running }) });

  test("a live daemon's record wins over the configured port (SIGNET_PORT, daemon.port, the default), not over SIGNET_DAEMON_URL or --url", () => {
    const dir = recorded(process.pid, "http://127.0.0.1:38421", 38421, "daemon:\n  port: 4000\n");
    expect(loadIn(dir).daemon.url).toBe("http://127.0.0.1:38421");
    expect(loadIn(dir, { SIGNET_PORT: "4001" }).daemon.url).toBe("http://127.0.0.1:38421");
    // What the configuration says, for `signet setup`'s entries.
    expect(loadIn(dir, { SIGNET_PORT: "4001" }, false).daemon.url).toBe("http://127.0.0.1:4001");
    expect(loadIn(dir, { SIGNET_DAEMON_URL: "http://10.0.0.5:3850" }).daemon.url).toBe("http://10.0.0.5:3850");
    expect(loadConfig({ env: { SIGNET_PATH: dir, HOME: dir }, flags: { daemon: { url: "http://127.0.0.1:7777" } } }).daemon.url).toBe("http://127.0.0.1:7777");
  });

  test("a daemon bound to a wildcard address is reached on 127.0.0.1; a record whose process is gone, or that cannot be read, is passed over", () => {
    expect(loadIn(recorded(process.pid, "http://0.0.0.0:4100", 4100)).daemon.url).toBe("http://127.0.0.1:4100");
    expect(loadIn(recorded(process.pid, "http://[::]:4101", 4101)).daemon.url).toBe("http://127.0.0.1:4101");
    const gone = Bun.spawnSync(["true"]).pid;
    expect(loadIn(recorded(gone, "http://127.0.0.1:38421", 38421)).daemon.url).toBe("http://127.0.0.1:3850");
    const broken = dataDir();
    mkdirSync(join(broken, ".daemon"));
    writeFileSync(join(broken, ".daemon", "daemon.pid"), "{not json");
    expect(loadIn(broken).daemon.url).toBe("http://127.0.0.1:3850");
    expect(loadIn(recorded(process.pid, "http://bad host:1", 1)).daemon.url).toBe("http://127.0.0.1:3850");
  });
});

describe("SIGNET_TOKEN_FILE", () => {
  function tokenFile(content: string, mode = 0o600): string {
    const path = join(dataDir(), "harness.token");
    writeFileSync(path, content, { mode });
    chmodSync(path, mode);
    return path;
  }

  test("the token in the file is auth.token, and wins over SIGNET_TOKEN", () => {
    const path = tokenFile("sgt_from_the_file\n");
    expect(load({ env: { SIGNET_TOKEN_FILE: path } }).auth.token).toBe("sgt_from_the_file");
    expect(load({ env: { SIGNET_TOKEN_FILE: path, SIGNET_TOKEN: "sgt_from_env" } }).auth.token).toBe("sgt_from_the_file");
    expect(load({ env: { SIGNET_TOKEN_FILE: "", SIGNET_TOKEN: "sgt_from_env" } }).auth.token).toBe("sgt_from_env");
  });

  test("a file that is missing, open to others, empty or more than a token is refused, naming it and what to do", () => {
    const missing = join(dataDir(), "nope.token");
    expect(configError(() => load({ env: { SIGNET_TOKEN_FILE: missing } })).message).toStartWith(`SIGNET_TOKEN_FILE ${missing}: no such file`);
    const open = tokenFile("sgt_x\n", 0o644);
    expect(configError(() => load({ env: { SIGNET_TOKEN_FILE: open } })).message).toBe(
      `SIGNET_TOKEN_FILE ${open}: other accounts may read or change it (mode 0644): run \`chmod 600 ${open}\``,
    );
    expect(configError(() => load({ env: { SIGNET_TOKEN_FILE: tokenFile("  \n") } })).message).toContain("it is empty");
    expect(configError(() => load({ env: { SIGNET_TOKEN_FILE: tokenFile("sgt_a\nsgt_b\n") } })).message).toContain("it must hold the token alone");
    expect(configError(() => load({ env: { SIGNET_TOKEN_FILE: dataDir() } })).message).toContain("not a regular file");
  });

  test("SIGNET_TOKEN holding more than the token is refused too, cached or not (it would be sent as a header the daemon refuses)", () => {
    const dir = dataDir();
    const env = { SIGNET_PATH: dir, HOME: dir, SIGNET_TOKEN: "sgt_abc # ci readonly" };
    for (const cached of [false, true]) expect(configError(() => loadConfig({ env, cached })).message).toContain("must be the token alone");
  });
});
