// The harness registration logic: the TOML reader/writer/editor, JSON entry merging, diffs, and
// plan/apply against a temporary home directory.
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { unifiedDiff } from "../../src/harness/diff";
import { tempDir } from "../helpers/temp-cleanup";
import { editJsonEntry, mergeEntry, readJsonObject, type Json } from "../../src/harness/json-edit";
import { isEmptyConfig } from "../../src/harness/created";
import { findMcpCommand } from "../../src/harness/mcp-command";
import { HarnessConfigError, applyPlan, planSetup } from "../../src/harness/plan";
import { readMcpRegistration } from "../../src/harness/registered";
import {
  TomlError,
  TomlLiteral,
  parseToml,
  setTomlTable,
  tomlInline,
  tomlTableBlock,
  type TomlTable,
  type TomlValue,
} from "../../src/harness/toml";
import type { HarnessContext } from "../../src/harness/types";

const SIGNET = ["mcp_servers", "signet"];
const ENTRY: TomlTable = { command: "signet-mcp", env: { SIGNET_DAEMON_URL: "http://127.0.0.1:3850" } };

/** Our values in the shapes Bun.TOML.parse returns, for comparing the two readers. */
function plain(v: TomlValue): unknown {
  if (v instanceof TomlLiteral) return v.kind === "float" ? Number(v.raw.replace(/_/g, "").replace(/^([+-]?)inf$/, "$1Infinity")) : v.raw;
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

describe("TOML reader", () => {
  const doc = [
    "# top comment",
    'title = "TOML \\"quoted\\" \\u00e9 \\t tab"',
    "literal = 'C:\\Users\\x'",
    'ml = """',
    "first line",
    '  [not.a.header]',
    '  ends with quotes ""',
    '"""',
    "mll = '''",
    "raw \\n [x]",
    "'''",
    'folded = """\\',
    "   one \\",
    '   two"""',
    "ints = [1, -2, +3, 1_000, 0x1F, 0o17, 0b101]",
    "floats = [1.5, -0.25, 6.02e23, 1e-3]",
    "bools = [true, false]",
    "nested = [[1, 2], ['a', \"b\"], ] # trailing comma",
    "multiline = [",
    "  1, # one",
    "  2,",
    "]",
    'inline = { a = 1, b.c = "d", e = [1, 2] }',
    'dotted.key = "x"',
    '"quoted key" = 1',
    "'lit.key' = 2",
    "",
    "[server]",
    'host = "h" # trailing',
    "",
    '[ "a b" . c ]',
    "x = 1",
    "",
    "[[products]]",
    'name = "one"',
    "[[products]]",
    'name = "two"',
    "",
  ].join("\n");

  test("reads what Bun.TOML reads", () => {
    expect(plain(parseToml(doc))).toEqual(Bun.TOML.parse(doc) as never);
  });

  test("keeps dates and floats as written", () => {
    const data = parseToml("d = 1979-05-27T07:32:00Z\nl = 1979-05-27\nt = 07:32:00\nf = 1.0\nn = nan\n");
    expect(data.d).toEqual(new TomlLiteral("datetime", "1979-05-27T07:32:00Z"));
    expect(data.l).toEqual(new TomlLiteral("datetime", "1979-05-27"));
    expect(data.t).toEqual(new TomlLiteral("datetime", "07:32:00"));
    expect(tomlInline(data.f!)).toBe("1.0");
    expect(tomlInline(data.n!)).toBe("nan");
  });

  test("integers beyond 2^53 are kept exactly (Bun.TOML refuses them)", () => {
    expect(parseToml("big = 9007199254740993\n").big).toBe(9007199254740993n);
  });

  test("rejects malformed documents with a position", () => {
    for (const bad of ['a = "unterminated', "a = ", "[table", "a = 1 b = 2", "= 1", 'a = """x', "a = [1 2]", "a = 12abc"]) {
      expect(() => parseToml(bad)).toThrow(TomlError);
    }
    // The parser (toml-eslint-parser) names where it noticed the problem: a missing value is seen
    // at the start of the next line, anything else on its own line.
    expect(() => parseToml("x = 1\ny = [1 2]\n")).toThrow(/line 2, column 8/);
    expect(() => parseToml('x = 1\ny = "unterminated\n')).toThrow(/line 2/);
    expect(() => parseToml("x = 1\ny = \n")).toThrow(/line 3, column 1/);
  });
});

describe("TOML writer", () => {
  test("strings, keys and nested tables round-trip through Bun.TOML", () => {
    const table: TomlTable = {
      s: 'quote " backslash \\ newline \n tab \t ctrl \u0001 del \u007f é 😀',
      "key with space": true,
      "dotted.key": 1,
      n: -42,
      list: ["a", 1, [true]],
      inline: [{ a: 1, "b c": "d" }],
      env: { SIGNET_DAEMON_URL: "http://10.0.0.5:3850", OTHER: "x" },
      deeper: { more: { x: 1 } },
    };
    const text = tomlTableBlock(["mcp_servers", "signet"], table);
    expect(Bun.TOML.parse(text)).toEqual({ mcp_servers: { signet: table } } as never);
    expect(parseToml(text)).toEqual({ mcp_servers: { signet: table } });
  });
});

describe("setTomlTable", () => {
  const original = [
    "# Codex config",
    'model = "o3"',
    "",
    "[mcp_servers.other]",
    'command = "npx" # keep me',
    'args = ["-y", "other-server"]',
    "",
    "# profiles below",
    "[profiles.fast]",
    'model = "o4-mini"',
    "",
  ].join("\n");

  test("appends the table and leaves every existing byte in place", () => {
    const out = setTomlTable(original, SIGNET, ENTRY);
    expect(out.startsWith(original)).toBe(true);
    expect(out.slice(original.length)).toBe(
      '\n[mcp_servers.signet]\ncommand = "signet-mcp"\n\n[mcp_servers.signet.env]\nSIGNET_DAEMON_URL = "http://127.0.0.1:3850"\n',
    );
    const data = Bun.TOML.parse(out) as any;
    expect(data.mcp_servers.other).toEqual({ command: "npx", args: ["-y", "other-server"] });
    expect(data.mcp_servers.signet).toEqual(ENTRY);
    expect(data.profiles.fast.model).toBe("o4-mini");
  });

  test("an empty file gets just the table; a file without a final newline keeps it so, and removing gives it back", () => {
    expect(setTomlTable("", SIGNET, { command: "signet-mcp" })).toBe('[mcp_servers.signet]\ncommand = "signet-mcp"\n');
    const added = setTomlTable("a = 1", SIGNET, { command: "x" });
    expect(added).toBe('a = 1\n\n[mcp_servers.signet]\ncommand = "x"');
    expect(setTomlTable(added, SIGNET, undefined)).toBe("a = 1");
    expect(setTomlTable("# only a comment", SIGNET, { command: "x" })).toBe('# only a comment\n\n[mcp_servers.signet]\ncommand = "x"');
    expect(setTomlTable(setTomlTable("a = 1\r\n[t]\r\nb = 2", SIGNET, { command: "x" }), SIGNET, undefined)).toBe("a = 1\r\n[t]\r\nb = 2");
  });

  test("a byte order mark stays in front", () => {
    const added = setTomlTable("\uFEFFa = 1\n", SIGNET, { command: "x" });
    expect(added).toBe('\uFEFFa = 1\n\n[mcp_servers.signet]\ncommand = "x"\n');
    expect(parseToml(added)).toEqual({ a: 1, mcp_servers: { signet: { command: "x" } } });
    expect(setTomlTable(added, SIGNET, undefined)).toBe("\uFEFFa = 1\n");
  });

  test("the same value again leaves the text alone, whatever its formatting", () => {
    const once = setTomlTable(original, SIGNET, ENTRY);
    expect(setTomlTable(once, SIGNET, ENTRY)).toBe(once);
    const odd = "[ mcp_servers . 'signet' ]\ncommand='signet-mcp' # mine\n[mcp_servers.signet.env]\nSIGNET_DAEMON_URL = 'http://127.0.0.1:3850'\n";
    expect(setTomlTable(odd, SIGNET, ENTRY)).toBe(odd);
  });

  test("replaces the signet tables in place; text before and after them is untouched", () => {
    const head = "# head\n[mcp_servers.a]\ncommand = \"a\"\n\n";
    const signet = '[mcp_servers.signet]\ncommand = "old"\n# inside\nargs = ["x"]\n\n[mcp_servers.signet.env]\nSIGNET_DAEMON_URL = "http://old:1"\n';
    const tail = "\n# about b\n[mcp_servers.b]\ncommand = \"b\"\n";
    const out = setTomlTable(head + signet + tail, SIGNET, { command: "signet-mcp", args: ["x"], env: { SIGNET_DAEMON_URL: "http://new:2" } });
    expect(out).toBe(
      head + '[mcp_servers.signet]\ncommand = "signet-mcp"\nargs = ["x"]\n\n[mcp_servers.signet.env]\nSIGNET_DAEMON_URL = "http://new:2"\n' + tail,
    );
  });

  test("signet tables scattered through the file are gathered where the first one was", () => {
    const text = '[mcp_servers.signet]\ncommand = "x"\n\n[other]\nk = 1\n\n[mcp_servers.signet.env]\nA = "1"\n\n[last]\nz = 2\n';
    const out = setTomlTable(text, SIGNET, { command: "signet-mcp", env: { A: "1" } });
    expect(out).toBe('[mcp_servers.signet]\ncommand = "signet-mcp"\n\n[mcp_servers.signet.env]\nA = "1"\n\n[other]\nk = 1\n\n[last]\nz = 2\n');
  });

  test("removing restores a file the table was appended to, byte for byte", () => {
    const out = setTomlTable(original, SIGNET, ENTRY);
    expect(setTomlTable(out, SIGNET, undefined)).toBe(original);
    expect(setTomlTable(original, SIGNET, undefined)).toBe(original);
  });

  test("removing from the middle keeps neighbours and their comments", () => {
    const text = '[a]\nx = 1\n\n[mcp_servers.signet]\ncommand = "s"\n\n# about b\n[b]\ny = 2\n';
    expect(setTomlTable(text, SIGNET, undefined)).toBe("[a]\nx = 1\n\n# about b\n[b]\ny = 2\n");
  });

  test("a header-like line inside a multi-line string is not a table", () => {
    const text = 'doc = """\n[mcp_servers.signet]\ncommand = "fake"\n"""\n';
    const out = setTomlTable(text, SIGNET, { command: "signet-mcp" });
    expect(out.startsWith(text)).toBe(true);
    expect((Bun.TOML.parse(out) as any).doc).toBe('[mcp_servers.signet]\ncommand = "fake"\n');
  });

  test("dotted-key definitions are moved into a [mcp_servers.signet] table", () => {
    const text = '[mcp_servers]\nsignet.command = "old"\nother.command = "o"\n';
    const out = setTomlTable(text, SIGNET, { command: "signet-mcp" });
    expect(out).toBe('[mcp_servers]\nother.command = "o"\n\n[mcp_servers.signet]\ncommand = "signet-mcp"\n');
    expect(Bun.TOML.parse(out)).toEqual({ mcp_servers: { other: { command: "o" }, signet: { command: "signet-mcp" } } } as never);
  });

  test("an inline mcp_servers table is refused rather than rewritten", () => {
    expect(() => setTomlTable('mcp_servers = { other = { command = "o" } }\n', SIGNET, ENTRY)).toThrow(/inline value/);
    expect(() => setTomlTable('[mcp_servers]\nsignet = { command = "o" }\n', SIGNET, ENTRY)).not.toThrow();
  });

  test("CRLF files stay CRLF", () => {
    const out = setTomlTable("a = 1\r\n", SIGNET, { command: "signet-mcp" });
    expect(out).toBe('a = 1\r\n\r\n[mcp_servers.signet]\r\ncommand = "signet-mcp"\r\n');
    expect(setTomlTable(out, SIGNET, undefined)).toBe("a = 1\r\n");
  });
});

describe("JSON entries", () => {
  const shape = { owned: ["type", "command", "args"], envKey: "env", envOwned: ["SIGNET_DAEMON_URL"] };
  const desired: Record<string, Json> = { type: "stdio", command: "signet-mcp", args: [] };

  test("adds the entry and keeps every other key", () => {
    const before = JSON.stringify({ theme: "dark", mcpServers: { other: { command: "x" } }, n: 1.5 });
    const after = editJsonEntry(before, "mcpServers", "signet", (e) => mergeEntry(e, desired, shape))!;
    expect(JSON.parse(after)).toEqual({ theme: "dark", mcpServers: { other: { command: "x" }, signet: desired }, n: 1.5 });
    // A file on one line stays on one line, written the way it is written.
    expect(after).toBe('{"theme":"dark","mcpServers":{"other":{"command":"x"},"signet":{"type":"stdio","command":"signet-mcp","args":[]}},"n":1.5}');
    expect(editJsonEntry(after, "mcpServers", "signet", () => undefined)).toBe(before);
  });

  test("an entry already right leaves the text alone; removing drops only it", () => {
    const compact = JSON.stringify({ mcpServers: { signet: desired, other: {} } });
    expect(editJsonEntry(compact, "mcpServers", "signet", (e) => mergeEntry(e, desired, shape))).toBe(compact);
    expect(JSON.parse(editJsonEntry(compact, "mcpServers", "signet", () => undefined)!)).toEqual({ mcpServers: { other: {} } });
    // The object that held it stays, unless setup created it.
    const only = JSON.stringify({ a: 1, mcpServers: { signet: desired } });
    expect(JSON.parse(editJsonEntry(only, "mcpServers", "signet", () => undefined)!)).toEqual({ a: 1, mcpServers: {} });
    expect(editJsonEntry(only, "mcpServers", "signet", () => undefined, "JSON", () => true)).toBe('{"a":1}');
    expect(editJsonEntry(null, "mcpServers", "signet", () => undefined)).toBeNull();
  });

  test("merging keeps the user's own keys and env variables, and owns SIGNET_DAEMON_URL", () => {
    const existing = { type: "sse", command: "old", timeout: 5, env: { FOO: "1", SIGNET_DAEMON_URL: "http://old:1" } };
    expect(mergeEntry(existing, desired, shape)).toEqual({ type: "stdio", command: "signet-mcp", timeout: 5, env: { FOO: "1" }, args: [] });
    expect(mergeEntry({ ...existing, env: { SIGNET_DAEMON_URL: "http://old:1" } }, desired, shape)).not.toHaveProperty("env");
    expect(mergeEntry({ ...existing, env: {} }, desired, shape)).toHaveProperty("env", {});
    expect(mergeEntry(undefined, { ...desired, env: { SIGNET_DAEMON_URL: "http://h:1" } }, shape)).toEqual({
      ...desired,
      env: { SIGNET_DAEMON_URL: "http://h:1" },
    });
  });

  test("invalid JSON, a non-object, and integers in the entry that would lose precision are refused", () => {
    expect(() => readJsonObject("{ not json")).toThrow(/not valid JSON/);
    expect(() => readJsonObject("[1]")).toThrow(/object/);
    const big = '{"id": 12345678901234567890, "mcpServers": {"signet": {"timeout": 12345678901234567891}}}';
    expect(() => editJsonEntry(big, "mcpServers", "signet", (e) => mergeEntry(e, desired, shape))).toThrow(/12345678901234567891.*precision/);
    expect(() => editJsonEntry('{"mcpServers": []}', "mcpServers", "signet", () => ({}))).toThrow(/not an object/);
  });

  test("values outside the entry keep their spelling: big integers, 1.50, escapes", () => {
    const before = '{"id": 12345678901234567890, "n": 1.50, "s": "\\u00e9", "mcpServers": {"signet": {"timeout": 99999999999999999999}}}';
    const after = editJsonEntry(before, "mcpServers", "signet", () => undefined, "JSON", () => true)!;
    expect(after).toBe('{"id": 12345678901234567890, "n": 1.50, "s": "\\u00e9"}');
  });
});

describe("JSONC configs", () => {
  const shape = { owned: ["type", "command", "enabled"], envKey: "environment", envOwned: ["SIGNET_DAEMON_URL"] };
  const desired: Record<string, Json> = { type: "local", command: ["signet-mcp"], enabled: true };
  const register = (text: string | null) => editJsonEntry(text, "mcp", "signet", (e) => mergeEntry(e, desired, shape), "JSONC");
  const unregister = (text: string | null) => editJsonEntry(text, "mcp", "signet", () => undefined, "JSONC");
  /** Taken out where setup created the `mcp` object for it. */
  const unregisterCreated = (text: string | null) => editJsonEntry(text, "mcp", "signet", () => undefined, "JSONC", () => true);
  const ENTRY_LINES = ['    "signet": {', '      "type": "local",', '      "command": [', '        "signet-mcp"', "      ],", '      "enabled": true', "    }"];

  test("comments and trailing commas stay; the entry is added after the other servers; removing restores the text", () => {
    const before = [
      "{",
      "  // my OpenCode settings",
      '  "theme": "tokyonight", /* dark */',
      '  "mcp": {',
      "    // servers added by hand",
      '    "other": {',
      '      "type": "remote",',
      '      "url": "https://x", // the hosted one',
      "    },",
      "  },",
      "}",
      "",
    ].join("\n");
    const after = register(before)!;
    expect(after).toBe(
      [...before.split("\n").slice(0, 8), "    },", ...ENTRY_LINES.slice(0, -1), "    },", "  },", "}", ""].join("\n"),
    );
    expect(readJsonObject(after, "JSONC")).toEqual({ theme: "tokyonight", mcp: { other: { type: "remote", url: "https://x" }, signet: desired } });
    expect(register(after)).toBe(after);
    expect(unregister(after)).toBe(before);
  });

  test("a new mcp object is added and removed whole; one left holding a comment stays", () => {
    const before = '{\n  // nothing else yet\n  "theme": "x",\n}\n';
    const after = register(before)!;
    expect(after).toBe(['{', "  // nothing else yet", '  "theme": "x",', '  "mcp": {', ...ENTRY_LINES, "  },", "}", ""].join("\n"));
    expect(unregisterCreated(after)).toBe(before);
    // One that was there before stays, as it was.
    expect(unregister(after)).toBe('{\n  // nothing else yet\n  "theme": "x",\n  "mcp": {},\n}\n');
    const commented = '{\n  "mcp": {\n    // keep this note\n    "signet": {"type": "local", "command": ["signet-mcp"]}\n  }\n}\n';
    expect(unregister(commented)).toBe('{\n  "mcp": {\n    // keep this note\n  }\n}\n');
  });

  test("removing an entry the user placed among commented ones takes no comment with it", () => {
    const middle = '{\n  "mcp": {\n    "other": {}, // about other\n    "signet": {},\n    "z": 1\n  }\n}\n';
    expect(unregister(middle)).toBe('{\n  "mcp": {\n    "other": {}, // about other\n    "z": 1\n  }\n}\n');
    const first = '{\n  "mcp": {\n    "signet": {},\n    // github needs a token\n    "github": {}\n  }\n}\n';
    expect(unregister(first)).toBe('{\n  "mcp": {\n    // github needs a token\n    "github": {}\n  }\n}\n');
    const last = '{\n  "mcp": {\n    "other": {}, // about other\n    // signet below\n    "signet": {} /* ours */\n  }\n}\n';
    expect(unregister(last)).toBe('{\n  "mcp": {\n    "other": {} // about other\n    // signet below\n     /* ours */\n  }\n}\n');
  });

  test("replacing an entry keeps the comment after it", () => {
    const before = '{\n  "mcp": {\n    "signet": {"type": "local", "command": ["old"]}, // ours\n    "x": {}\n  }\n}\n';
    expect(register(before)).toBe(['{', '  "mcp": {', ...ENTRY_LINES.slice(0, -1), "    }, // ours", '    "x": {}', "  }", "}", ""].join("\n"));
  });

  test("the file's indentation, line endings and byte order mark are kept", () => {
    const tabs = register('{\n\t"theme": "x"\n}\n')!;
    expect(tabs).toContain('\n\t"mcp": {\n\t\t"signet": {\n\t\t\t"type": "local",');
    const four = register('{\r\n    "theme": "x"\r\n}\r\n')!;
    expect(four).toContain('\r\n    "mcp": {\r\n        "signet": {\r\n            "type": "local",');
    expect(four.replace(/\r\n/g, "")).not.toContain("\n");
    const bom = register('\uFEFF{"theme": "x"}\n')!;
    expect(bom).toBe('\uFEFF{"theme": "x", "mcp": {"signet": {"type": "local", "command": ["signet-mcp"], "enabled": true}}}\n');
    expect(unregisterCreated(bom)).toBe('\uFEFF{"theme": "x"}\n');
  });

  test("text that is not JSONC is refused with the line and column of the first error", () => {
    expect(() => register('{\n  "mcp": {},\n  "b": [1 2]\n}\n')).toThrow("not valid JSONC (comma expected at line 3, column 11)");
    expect(() => register('{ "mcp": { // unterminated\n')).toThrow("not valid JSONC (close brace expected at line 2, column 1)");
    expect(() => readJsonObject("{ mcpServers: ")).toThrow("not valid JSON (invalid symbol at line 1, column 3)");
  });
});

describe("unifiedDiff", () => {
  test("hunks with context, deletions before additions", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\n";
    const after = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
    expect(unifiedDiff("f.txt", before, after)).toBe(
      "--- f.txt\n+++ f.txt\n@@ -2,7 +2,8 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n+i\n",
    );
    expect(unifiedDiff("f.txt", null, "x\n")).toBe("--- /dev/null\n+++ f.txt\n@@ -0,0 +1,1 @@\n+x\n");
    expect(unifiedDiff("f.txt", "same\n", "same\n")).toBe("");
  });
});

const MCP = "/opt/signet/bin/signet-mcp";
const SIGNET_BIN = "/opt/signet/bin/signet";

function context(overrides: Partial<HarnessContext> = {}): HarnessContext {
  const root = tempDir("signet-harness-");
  const home = join(root, "home");
  mkdirSync(home);
  return {
    home,
    env: { PATH: "" },
    dataDir: join(root, "agents"),
    install: { command: MCP, signet: SIGNET_BIN, daemonUrl: "http://127.0.0.1:3850" },
    ...overrides,
  };
}
const uninstall = (ctx: HarnessContext): HarnessContext => ({ ...ctx, install: undefined });
const files = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();
/** The files a plan holds for MCP registration alone: those of the lifecycle hooks are tested on their own. */
const HOOK_FILES = /(settings\.json|hooks\.json|signet\.js)$/;
const mcpFiles = <T extends { path: string }>(list: T[]) => list.filter((f) => !HOOK_FILES.test(f.path));

describe("plan and apply", () => {
  const CLAUDE = (dataDir: string) => ({ type: "stdio", command: MCP, args: [], env: { SIGNET_PATH: dataDir } });
  const OPENCODE = (dataDir: string) => ({ type: "local", command: [MCP], enabled: true, environment: { SIGNET_PATH: dataDir } });

  test("claude-code: the entry goes to .claude.json only, with the absolute signet-mcp and SIGNET_PATH; one backup, then nothing", () => {
    const ctx = context();
    writeFileSync(join(ctx.home, ".claude.json"), JSON.stringify({ numStartups: 3, mcpServers: { other: { command: "o" } } }));
    const plan = planSetup("claude-code", ctx);
    // The hooks go to settings.json, created for them.
    expect(plan.files.map((f) => [f.path, f.action])).toEqual([
      [join(ctx.home, ".claude.json"), "updated"],
      [join(ctx.home, ".claude", "settings.json"), "created"],
    ]);
    const applied = applyPlan(plan, new Date("2026-01-02T03:04:05Z"));
    expect(applied.files[0]!.backup).toBe(join(ctx.home, ".claude.json.signet-backup-20260102T030405Z"));
    expect(readFileSync(applied.files[0]!.backup!, "utf8")).toBe(JSON.stringify({ numStartups: 3, mcpServers: { other: { command: "o" } } }));
    expect(readJsonObject(readFileSync(join(ctx.home, ".claude.json"), "utf8"))).toEqual({
      numStartups: 3,
      mcpServers: { other: { command: "o" }, signet: CLAUDE(ctx.dataDir) },
    });
    const again = planSetup("claude-code", ctx);
    expect(again.files.map((f) => f.action)).toEqual(["unchanged", "unchanged"]);
    applyPlan(again);
    expect(readdirSync(ctx.home).filter((n) => n.includes("signet-backup"))).toHaveLength(1);
  });

  test("claude-code: the entry an earlier setup wrote to settings.json is taken out, saying why; anything else there stays", () => {
    const ctx = context();
    const settings = join(ctx.home, ".claude", "settings.json");
    mkdirSync(dirname(settings));
    writeFileSync(settings, JSON.stringify({ theme: "dark", mcpServers: { signet: { type: "stdio", command: "signet-mcp", args: [] }, other: { command: "o" } } }));
    const plan = planSetup("claude-code", ctx);
    const migrated = plan.files.find((f) => f.path === settings)!;
    expect(migrated.action).toBe("updated");
    expect(migrated.reason).toContain(join(ctx.home, ".claude.json"));
    applyPlan(plan);
    const { hooks, ...rest } = readJsonObject(readFileSync(settings, "utf8"));
    expect(rest).toEqual({ theme: "dark", mcpServers: { other: { command: "o" } } });
    expect(Object.keys(hooks as object)).toEqual(["SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "SessionEnd"]);
    expect(readJsonObject(readFileSync(join(ctx.home, ".claude.json"), "utf8"))).toEqual({ mcpServers: { signet: CLAUDE(ctx.dataDir) } });

    // A server the user named signet that does not start signet-mcp is theirs; a broken file is not ours to fix.
    const own = { mcpServers: { signet: { command: "/usr/bin/my-signet" } } };
    writeFileSync(settings, JSON.stringify(own));
    const kept = planSetup("claude-code", ctx).files.find((f) => f.path === settings)!;
    expect(readJsonObject(kept.after!).mcpServers).toEqual(own.mcpServers);
    writeFileSync(settings, "{ broken");
    // .claude.json did not exist before this setup: it goes whole.
    expect(planSetup("claude-code", uninstall(ctx)).files.map((f) => f.action)).toEqual(["deleted", "unchanged"]);
  });

  test("an invalid .claude.json stops the plan before anything is written", () => {
    const ctx = context();
    writeFileSync(join(ctx.home, ".claude.json"), "{ broken");
    expect(() => planSetup("claude-code", ctx)).toThrow(HarnessConfigError);
    expect(() => planSetup("claude-code", ctx)).toThrow(join(ctx.home, ".claude.json"));
    expect(existsSync(ctx.dataDir)).toBe(false);
  });

  test("a symlinked config is edited at its target and stays a link", () => {
    const ctx = context();
    const real = join(ctx.home, "dotfiles", "opencode.json");
    mkdirSync(join(ctx.home, "dotfiles"));
    mkdirSync(join(ctx.home, ".config", "opencode"), { recursive: true });
    writeFileSync(real, '{"theme": "x"}\n');
    const link = join(ctx.home, ".config", "opencode", "opencode.json");
    symlinkSync(real, link);
    applyPlan(planSetup("opencode", ctx));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8"))).toEqual({ theme: "x", mcp: { signet: OPENCODE(ctx.dataDir) } });
  });

  test("opencode: opencode.jsonc when it exists; with both, an entry in opencode.json is kept in step, never added", () => {
    const ctx = context({ install: { command: MCP, signet: SIGNET_BIN, daemonUrl: "http://10.0.0.5:3850" } });
    const dir = join(ctx.home, ".config", "opencode");
    const json = join(dir, "opencode.json");
    const jsonc = join(dir, "opencode.jsonc");
    mkdirSync(dir, { recursive: true });
    const jsoncText = '{\n  // mine\n  "theme": "x",\n}\n';
    writeFileSync(jsonc, jsoncText);
    const only = planSetup("opencode", ctx);
    expect(mcpFiles(only.files).map((f) => [f.path, f.action])).toEqual([[jsonc, "updated"]]);
    expect(only.files[0]!.after).toStartWith('{\n  // mine\n  "theme": "x",\n  "mcp": {');

    writeFileSync(json, JSON.stringify({ theme: "y" }));
    const both = planSetup("opencode", ctx);
    expect(mcpFiles(both.files).map((f) => [f.path, f.action])).toEqual([
      [json, "unchanged"],
      [jsonc, "updated"],
    ]);
    // An older entry in opencode.json (written before the .jsonc existed) gets the same values.
    writeFileSync(json, JSON.stringify({ mcp: { signet: { type: "local", command: ["signet-mcp"], timeout: 9000 } } }));
    applyPlan(planSetup("opencode", ctx));
    const entry = { ...OPENCODE(ctx.dataDir), environment: { SIGNET_PATH: ctx.dataDir, SIGNET_DAEMON_URL: "http://10.0.0.5:3850" } };
    expect(readJsonObject(readFileSync(json, "utf8"))).toEqual({ mcp: { signet: { ...entry, timeout: 9000 } } });
    expect(readJsonObject(readFileSync(jsonc, "utf8"), "JSONC")).toEqual({ theme: "x", mcp: { signet: entry } });

    // The mcp object that was in opencode.json before setup stays; the one setup added to the .jsonc goes.
    applyPlan(planSetup("opencode", uninstall(ctx)));
    expect(readJsonObject(readFileSync(json, "utf8"))).toEqual({ mcp: {} });
    expect(readFileSync(jsonc, "utf8")).toBe(jsoncText);
  });

  test("opencode: with OPENCODE_CONFIG the entry goes to that file, which OpenCode merges last; the global files' entries are kept in step; doctor reads what was written", () => {
    const base = context({ install: { command: MCP, signet: SIGNET_BIN, daemonUrl: "http://10.0.0.5:3850" } });
    const custom = join(base.home, "custom.json");
    const ctx = { ...base, env: { PATH: "", OPENCODE_CONFIG: custom } };
    const dir = join(ctx.home, ".config", "opencode");
    const json = join(dir, "opencode.json");
    const stale = { type: "local", command: ["/old/signet-mcp"], enabled: true, environment: { SIGNET_PATH: "/another/store" } };
    writeFileSync(custom, JSON.stringify({ theme: "x", mcp: { signet: stale } }));
    // No global file: none is created, the entry goes where OpenCode reads it last.
    const plan = planSetup("opencode", ctx);
    expect(mcpFiles(plan.files).map((f) => [f.path, f.action])).toEqual([[custom, "updated"]]);
    applyPlan(plan);
    const entry = { ...OPENCODE(ctx.dataDir), environment: { SIGNET_PATH: ctx.dataDir, SIGNET_DAEMON_URL: "http://10.0.0.5:3850" } };
    expect(readJsonObject(readFileSync(custom, "utf8"))).toEqual({ theme: "x", mcp: { signet: entry } });
    expect(existsSync(json)).toBe(false);
    // What doctor reads (and runs) is what setup wrote: no fix that changes nothing.
    expect(readMcpRegistration("opencode", ctx)).toMatchObject({ file: custom, command: MCP, env: entry.environment });
    expect(planSetup("opencode", ctx).files.map((f) => f.action)).toEqual(["unchanged", "unchanged"]);

    // An entry in a global file is merged under it by OpenCode: kept in step, so no old value shows through.
    mkdirSync(dir, { recursive: true });
    writeFileSync(json, JSON.stringify({ mcp: { signet: stale } }));
    expect(mcpFiles(planSetup("opencode", ctx).files).map((f) => [f.path, f.action])).toEqual([
      [json, "updated"],
      [custom, "unchanged"],
    ]);
    applyPlan(planSetup("opencode", ctx));
    expect(readJsonObject(readFileSync(json, "utf8"))).toEqual({ mcp: { signet: entry } });

    // --uninstall takes it out of every file OpenCode reads it from.
    // The mcp objects were there before setup: they stay.
    applyPlan(planSetup("opencode", uninstall(ctx)));
    expect(readJsonObject(readFileSync(custom, "utf8"))).toEqual({ theme: "x", mcp: {} });
    expect(readJsonObject(readFileSync(json, "utf8"))).toEqual({ mcp: {} });
    expect(readMcpRegistration("opencode", ctx)).toBeUndefined();

    // A file OPENCODE_CONFIG names that is not there yet is created with the entry.
    const fresh = { ...ctx, env: { PATH: "", OPENCODE_CONFIG: join(ctx.home, "cfg", "oc.json") } };
    expect(mcpFiles(planSetup("opencode", fresh).files).map((f) => [f.path, f.action])).toEqual([
      [json, "unchanged"],
      [join(ctx.home, "cfg", "oc.json"), "created"],
    ]);
  });

  test("claude-code: a settings.json with no MCP entry of an earlier setup is given the hooks with no word of one", () => {
    const ctx = context();
    const settings = join(ctx.home, ".claude", "settings.json");
    const fresh = planSetup("claude-code", ctx).files.find((f) => f.path === settings)!;
    expect(fresh).toMatchObject({ action: "created" });
    expect(fresh.reason).toBeUndefined();
    mkdirSync(dirname(settings));
    writeFileSync(settings, JSON.stringify({ theme: "dark", mcpServers: { other: { command: "o" } } }));
    const updated = planSetup("claude-code", ctx).files.find((f) => f.path === settings)!;
    expect(updated).toMatchObject({ action: "updated" });
    expect(updated.reason).toBeUndefined();
  });

  test("claude-code: comments in .claude.json are kept, the backup is the original, uninstall restores it", () => {
    const ctx = context();
    const state = join(ctx.home, ".claude.json");
    const original = '{\n  // written by hand\n  "numStartups": 3,\n  "mcpServers": {\n    "other": {\n      "command": "o" // keep\n    }\n  }\n}\n';
    writeFileSync(state, original);
    const applied = applyPlan(planSetup("claude-code", ctx));
    expect(readFileSync(applied.files[0]!.backup!, "utf8")).toBe(original);
    const after = readFileSync(state, "utf8");
    expect(after).toContain("// written by hand");
    expect(after).toContain("// keep");
    expect(readJsonObject(after)).toEqual({ numStartups: 3, mcpServers: { other: { command: "o" }, signet: CLAUDE(ctx.dataDir) } });
    expect(planSetup("claude-code", ctx).files.map((f) => f.action)).toEqual(["unchanged", "unchanged"]);
    const removed = applyPlan(planSetup("claude-code", uninstall(ctx)));
    expect(mcpFiles(removed.files).map((f) => [f.action, f.entry])).toEqual([["removed", "mcpServers.signet"]]);
    expect(readFileSync(state, "utf8")).toBe(original);
  });

  test("a config that is not valid JSONC is refused naming the file, the line and the column", () => {
    const ctx = context();
    const jsonc = join(ctx.home, ".config", "opencode", "opencode.jsonc");
    mkdirSync(dirname(jsonc), { recursive: true });
    writeFileSync(jsonc, '{\n  // fine so far\n  "mcp": { "a": 1 "b": 2 }\n}\n');
    expect(() => planSetup("opencode", ctx)).toThrow(`${jsonc}: not valid JSONC (comma expected at line 3, column 19); nothing was changed`);
  });

  test("a file changed between plan and apply is not overwritten", () => {
    const ctx = context();
    const plan = planSetup("codex", ctx);
    mkdirSync(join(ctx.home, ".codex"));
    writeFileSync(join(ctx.home, ".codex", "config.toml"), "model = 'x'\n");
    expect(() => applyPlan(plan)).toThrow(/changed while/);
    expect(readFileSync(join(ctx.home, ".codex", "config.toml"), "utf8")).toBe("model = 'x'\n");
  });

  test("the harnesses' own location variables are honoured", () => {
    const ctx = context();
    const env = { PATH: "", CODEX_HOME: join(ctx.home, "cx"), XDG_CONFIG_HOME: join(ctx.home, "xdg"), CLAUDE_CONFIG_DIR: join(ctx.home, "cc") };
    mkdirSync(join(ctx.home, "cc"));
    writeFileSync(join(ctx.home, "cc", "settings.json"), "{}\n");
    expect(planSetup("codex", { ...ctx, env }).files[0]!.path).toBe(join(ctx.home, "cx", "config.toml"));
    expect(planSetup("opencode", { ...ctx, env }).files[0]!.path).toBe(join(ctx.home, "xdg", "opencode", "opencode.json"));
    expect(planSetup("claude-code", { ...ctx, env }).files.map((f) => f.path)).toEqual([
      join(ctx.home, "cc", ".claude.json"),
      join(ctx.home, "cc", "settings.json"),
    ]);
  });

  test("codex: the absolute command and SIGNET_PATH in the entry, with the URL, token file and agent it is given; never a token", () => {
    const tokenFile = "/data dir/.daemon/tokens/codex.token";
    const ctx = context({
      install: { command: "/path with space/signet-mcp", signet: "/path with space/signet", daemonUrl: "http://10.0.0.5:3850", tokenFile, agentId: "laptop" },
    });
    const plan = planSetup("codex", ctx);
    expect(Bun.TOML.parse(plan.files[0]!.after!)).toEqual({
      mcp_servers: {
        signet: {
          command: "/path with space/signet-mcp",
          env: { SIGNET_PATH: ctx.dataDir, SIGNET_DAEMON_URL: "http://10.0.0.5:3850", SIGNET_TOKEN_FILE: tokenFile, SIGNET_AGENT_ID: "laptop" },
        },
      },
    } as never);
    // The default URL is not written: the entry's signet-mcp finds the data directory's running daemon, else that one.
    const plain = planSetup("codex", context());
    expect(Bun.TOML.parse(plain.files[0]!.after!)).toEqual({ mcp_servers: { signet: { command: MCP, env: { SIGNET_PATH: expect.any(String) } } } } as never);
  });

  test("codex refuses a file that is not valid TOML", () => {
    const ctx = context();
    mkdirSync(join(ctx.home, ".codex"));
    writeFileSync(join(ctx.home, ".codex", "config.toml"), "[a]\nx = 1\n[a]\ny = 2\n");
    expect(() => planSetup("codex", ctx)).toThrow(/not valid TOML/);
  });
});

describe("what setup created, and --uninstall", () => {
  const record = (ctx: HarnessContext) => JSON.parse(readFileSync(join(ctx.dataDir, ".daemon", "setup-created.json"), "utf8"));

  test("a file and the directories setup created are recorded, and deleted by --uninstall when nothing else is in them", () => {
    const ctx = context({ env: { PATH: "", CODEX_HOME: "" } });
    const config = join(ctx.home, ".codex", "config.toml");
    const hooks = join(ctx.home, ".codex", "hooks.json");
    const dry = planSetup("codex", ctx);
    expect(dry.newDirs).toEqual([join(ctx.home, ".codex")]);
    expect(existsSync(ctx.dataDir)).toBe(false);
    applyPlan(dry);
    expect(record(ctx)).toEqual({ files: [config, hooks], dirs: [join(ctx.home, ".codex")] });
    expect(statSync(join(ctx.dataDir, ".daemon", "setup-created.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(ctx.dataDir, ".daemon")).mode & 0o777).toBe(0o700);

    const plan = planSetup("codex", uninstall(ctx));
    expect(plan.files.map((f) => [f.path, f.action, f.after])).toEqual([
      [config, "deleted", null],
      [hooks, "deleted", null],
    ]);
    const applied = applyPlan(plan);
    expect(applied.files.map((f) => [f.path, f.action])).toEqual([
      [config, "deleted"],
      [hooks, "deleted"],
    ]);
    expect(applied.removedDirs).toEqual([join(ctx.home, ".codex")]);
    expect(files(ctx.home)).toEqual([]);
    expect(existsSync(join(ctx.dataDir, ".daemon", "setup-created.json"))).toBe(false);
  });

  test("a created file that someone else wrote to is kept, and so is its directory", () => {
    const ctx = context();
    const config = join(ctx.home, ".codex", "config.toml");
    applyPlan(planSetup("codex", ctx));
    writeFileSync(config, `model = "o3"\n\n${readFileSync(config, "utf8")}`);
    const applied = applyPlan(planSetup("codex", uninstall(ctx)));
    expect(applied.files.map((f) => f.action)).toEqual(["removed", "deleted"]);
    expect(applied.removedDirs).toEqual([]);
    expect(readFileSync(config, "utf8")).toBe('model = "o3"\n');
    // Uninstalled: the files are no longer Signet's; the directory stays recorded while it is not empty.
    expect(record(ctx)).toEqual({ files: [], dirs: [join(ctx.home, ".codex")] });
  });

  test("a file that existed before setup is never deleted, however empty it is left", () => {
    const ctx = context();
    const json = join(ctx.home, ".config", "opencode", "opencode.json");
    mkdirSync(dirname(json), { recursive: true });
    writeFileSync(json, "{}\n");
    applyPlan(planSetup("opencode", ctx));
    // Only the plugin (and its directory) are new.
    expect(record(ctx).files).toEqual([join(dirname(json), "plugins", "signet.js")]);
    const applied = applyPlan(planSetup("opencode", uninstall(ctx)));
    expect(applied.files.map((f) => f.action)).toEqual(["removed", "deleted"]);
    expect(readJsonObject(readFileSync(json, "utf8"))).toEqual({});
  });

  test("a created file left holding comments is kept; a dry run records nothing", () => {
    const ctx = context();
    const json = join(ctx.home, ".config", "opencode", "opencode.json");
    planSetup("opencode", ctx);
    expect(existsSync(ctx.dataDir)).toBe(false);
    applyPlan(planSetup("opencode", ctx));
    writeFileSync(json, readFileSync(json, "utf8").replace("{", "{\n  // my notes"));
    const applied = applyPlan(planSetup("opencode", uninstall(ctx)));
    expect(applied.files.map((f) => f.action)).toEqual(["removed", "deleted"]);
    expect(readFileSync(json, "utf8")).toContain("// my notes");
  });

  test("isEmptyConfig: only an empty object or nothing", () => {
    for (const empty of ["", "\n", "{}", "{}\n", "\uFEFF{\n}\n", "  {  }  "]) expect(isEmptyConfig(empty)).toBe(true);
    for (const full of ["{ // note\n}", "# comment\n", "[]", '{"a": 1}', "a = 1\n", "{}{}"]) expect(isEmptyConfig(full)).toBe(false);
  });
});

describe("findMcpCommand", () => {
  const root = tempDir("signet-mcp-command-");
  const exe = (path: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "#!/bin/sh\n", { mode: 0o755 });
    return path;
  };
  const beside = exe(join(root, "dist", "signet-mcp"));
  const onPath = exe(join(root, "bin", "signet-mcp"));
  mkdirSync(join(root, "plain"));
  writeFileSync(join(root, "plain", "signet-mcp"), "#!/bin/sh\n", { mode: 0o644 });

  test("the one beside the running binary first, else the first on PATH, as an absolute path", () => {
    expect(findMcpCommand({ PATH: join(root, "bin") }, join(root, "dist"))).toBe(beside);
    expect(findMcpCommand({ PATH: join(root, "bin") }, join(root, "nowhere"))).toBe(onPath);
    expect(findMcpCommand({ PATH: join(root, "bin") }, undefined)).toBe(onPath);
  });

  test("a file that is not executable does not count; none at all is undefined", () => {
    expect(findMcpCommand({ PATH: join(root, "plain") }, join(root, "plain"))).toBeUndefined();
    expect(findMcpCommand({ PATH: "" }, undefined)).toBeUndefined();
  });
});
