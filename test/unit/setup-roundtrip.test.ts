// `signet setup` then `--uninstall` against real files in a temporary home, over config shapes users
// have (comments, one-line objects, tabs, CRLF, a byte order mark, trailing commas, no final
// newline, empty containers): setup only inserts Signet's text, the harness reads Signet's entries
// from the result, and --uninstall gives back the file byte for byte. Then what setup must refuse
// (a key written twice, a server of the user's own named signet) and what --uninstall must keep.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { COMMAND_HOOKS } from "../../src/harness/hook-io";
import { editHooks } from "../../src/harness/hooks-json";
import { containerState, editJsonEntry, readJsonObject } from "../../src/harness/json-edit";
import { HarnessConfigError, applyPlan, planSetup } from "../../src/harness/plan";
import { readHookRegistration, readMcpRegistration } from "../../src/harness/registered";
import { parseToml } from "../../src/harness/toml";
import type { HarnessContext, HarnessName } from "../../src/harness/types";
import { tempDir } from "../helpers/temp-cleanup";

const MCP = "/opt/signet/bin/signet-mcp";
const SIGNET = "/opt/signet/bin/signet";

function context(): HarnessContext {
  const root = tempDir("signet-roundtrip-");
  const home = join(root, "home");
  mkdirSync(home);
  return { home, env: { PATH: "" }, dataDir: join(root, "agents"), install: { command: MCP, signet: SIGNET, daemonUrl: "http://127.0.0.1:3850" } };
}
const uninstall = (ctx: HarnessContext): HarnessContext => ({ ...ctx, install: undefined });

function write(ctx: HarnessContext, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(ctx.home, name)), { recursive: true });
    writeFileSync(join(ctx.home, name), text);
  }
}
const read = (ctx: HarnessContext, name: string) => readFileSync(join(ctx.home, name), "utf8");
/** Every file under the home but setup's backups. */
const listing = (ctx: HarnessContext) =>
  readdirSync(ctx.home, { recursive: true })
    .map(String)
    .filter((f) => !f.includes("signet-backup"))
    .sort();

/** Whether `after` is `before` with text inserted and nothing taken away or changed. */
function onlyInserted(before: string, after: string): boolean {
  let i = 0;
  for (let j = 0; j < after.length && i < before.length; j++) if (after[j] === before[i]) i++;
  return i === before.length;
}

// ---- the shapes ----

const CLAUDE_SETTINGS = `{
  "hooks": {
    "UserPromptSubmit": [
      // run my linter before every prompt
      { "hooks": [ { "type": "command", "command": "/usr/local/bin/mine.sh" } ] }
    ],
    "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo pre" } ] } ]
  }
}
`;
const CLAUDE_STATE = `{
  "numStartups": 3,
  "mcpServers": {
    "github": { "type": "stdio", "command": "gh-mcp", "args": [] }
  },
  "projects": {}
}
`;

const SHAPES: Record<HarnessName, Record<string, Record<string, string>>> = {
  "claude-code": {
    "comments, one-line entries before Signet's": { ".claude/settings.json": CLAUDE_SETTINGS, ".claude.json": CLAUDE_STATE },
    "a state file on one line": { ".claude.json": '{"numStartups":1}', ".claude/settings.json": '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x"}]}]}}' },
    "one line with spaces": { ".claude.json": '{"numStartups": 1, "mcpServers": {"a": {"command": "a"}}}\n', ".claude/settings.json": '{ "model": "opus" }\n' },
    "empty containers the user has (as `claude mcp remove` leaves them)": {
      ".claude.json": '{\n  "numStartups": 3,\n  "mcpServers": {},\n  "userID": "abc"\n}',
      ".claude/settings.json": '{\n  "hooks": {\n    "SessionStart": [],\n    "Stop": [ ]\n  },\n  "permissions": { "allow": [] }\n}\n',
    },
    "an empty hooks object": { ".claude/settings.json": '{\n  "hooks": {}\n}\n', ".claude.json": '{\n  "mcpServers": { }\n}\n' },
    "empty files of an object alone": { ".claude/settings.json": "{}", ".claude.json": "{ }\n" },
    "trailing commas and block comments": {
      ".claude/settings.json": '{\n  /* mine */ "hooks": {\n    "SessionStart": [\n      { "hooks": [ { "type": "command", "command": "a" } ] }, // a\n    ],\n  },\n}\n',
      ".claude.json": '{\n  "mcpServers": {\n    // none yet\n  },\n  "x": 1, // last\n}\n',
    },
    "a line comment on an empty object's line": { ".claude/settings.json": '{\n  "hooks": { // to do\n  }\n}\n', ".claude.json": '{ "mcpServers": { /* none */ } }\n' },
  },
  codex: {
    "comments and a tab-indented compact hooks file": {
      ".codex/config.toml": '# my settings\nmodel = "o3" # inline\n\n[mcp_servers.github]\ncommand = "gh-mcp"\n',
      ".codex/hooks.json": '{\n\t"hooks": {\n\t\t"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}]\n\t}\n}\n',
    },
    "an [mcp_servers] table of its own, an empty event list": {
      ".codex/config.toml": '[mcp_servers]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
      ".codex/hooks.json": '{"hooks": {"SessionEnd": []}}\n',
    },
    "only comments": { ".codex/config.toml": "# nothing yet\n", ".codex/hooks.json": "// nothing yet\n{}\n" },
    "blank lines at the end": { ".codex/config.toml": 'model = "o3"\n\n\n', ".codex/hooks.json": "{}\n\n" },
  },
  opencode: {
    "JSONC with a one-line server before Signet's, trailing commas": {
      ".config/opencode/opencode.jsonc": '{\n  "$schema": "https://opencode.ai/config.json",\n  // keep the theme dark\n  "theme": "tokyonight",\n  "mcp": {\n    "other": { "type": "remote", "url": "https://x" }, // hosted\n  },\n}\n',
    },
    "an empty mcp object": { ".config/opencode/opencode.json": '{\n  "mcp": {},\n  "theme": "x"\n}\n' },
    "one line": { ".config/opencode/opencode.json": '{"theme":"x"}' },
    "both files, the JSONC one without mcp": {
      ".config/opencode/opencode.json": '{\n  "theme": "y"\n}\n',
      ".config/opencode/opencode.jsonc": "{\n  // mine\n  \"theme\": \"x\",\n}\n",
    },
  },
};

const VARIANTS: Record<string, (text: string, name: string) => string> = {
  as: (t) => t,
  "with CRLF line endings": (t) => t.replace(/\n/g, "\r\n"),
  "with a byte order mark": (t) => `\uFEFF${t}`,
  "without a final newline": (t) => t.replace(/\n$/, ""),
  "indented with tabs": (t, name) => (name.endsWith(".toml") ? t : t.replace(/^( {2})+/gm, (m) => "\t".repeat(m.length / 2))),
  "with all of BOM, CRLF, no final newline": (t) => `\uFEFF${t.replace(/\n$/, "").replace(/\n/g, "\r\n")}`,
};

describe("setup then --uninstall gives back every file as it was", () => {
  for (const [harness, shapes] of Object.entries(SHAPES) as [HarnessName, Record<string, Record<string, string>>][]) {
    for (const [shape, original] of Object.entries(shapes)) {
      test(`${harness}: ${shape}, in every variant`, () => {
        for (const [variant, transform] of Object.entries(VARIANTS)) {
          const ctx = context();
          const files = Object.fromEntries(Object.entries(original).map(([name, text]) => [name, transform(text, name)]));
          write(ctx, files);
          const home = listing(ctx);
          applyPlan(planSetup(harness, ctx));
          for (const [name, before] of Object.entries(files)) {
            const after = read(ctx, name);
            expect({ variant, name, onlyInserted: onlyInserted(before, after) }).toEqual({ variant, name, onlyInserted: true });
            // What Signet adds is written in the file's own line endings, and indentation where it has one.
            if (before.includes("\r\n")) expect({ variant, name, bareNewline: /[^\r]\n/.test(after) }).toEqual({ variant, name, bareNewline: false });
            if (/^\t/m.test(before)) expect({ variant, name, spaceIndented: /^ +\S/m.test(after) }).toEqual({ variant, name, spaceIndented: false });
          }
          // The harness reads what setup wrote.
          expect(readMcpRegistration(harness, ctx)).toMatchObject({ command: MCP, env: { SIGNET_PATH: ctx.dataDir } });
          const hooks = readHookRegistration(harness, ctx);
          if (hooks?.kind === "commands") expect(hooks.commands.map((c) => c.harnessEvent).sort()).toEqual(COMMAND_HOOKS.map((h) => h.harnessEvent).sort());
          // Run again: nothing to change.
          expect(planSetup(harness, ctx).files.map((f) => f.action).filter((a) => a !== "unchanged")).toEqual([]);

          applyPlan(planSetup(harness, uninstall(ctx)));
          for (const [name, before] of Object.entries(files)) expect({ variant, name, text: read(ctx, name) }).toEqual({ variant, name, text: before });
          expect(listing(ctx)).toEqual(home);
        }
      });
    }
  }

  test("the user's own hooks and servers are not touched: the comment stays, PreToolUse stays on one line", () => {
    const ctx = context();
    write(ctx, { ".claude/settings.json": CLAUDE_SETTINGS, ".claude.json": CLAUDE_STATE });
    applyPlan(planSetup("claude-code", ctx));
    const settings = read(ctx, ".claude/settings.json");
    expect(settings).toContain("      // run my linter before every prompt\n");
    expect(settings).toContain('    "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "echo pre" } ] } ],\n');
    expect(settings).toContain('      { "hooks": [ { "type": "command", "command": "/usr/local/bin/mine.sh" } ] },\n      {\n        "hooks": [\n');
    expect(read(ctx, ".claude.json")).toContain('    "github": { "type": "stdio", "command": "gh-mcp", "args": [] },\n    "signet": {\n      "type": "stdio",\n');
    // A one-line file stays one line.
    const one = context();
    write(one, { ".claude.json": '{"numStartups":1}' });
    applyPlan(planSetup("claude-code", one));
    expect(read(one, ".claude.json")).toBe(`{"numStartups":1,"mcpServers":{"signet":{"type":"stdio","command":"${MCP}","args":[],"env":{"SIGNET_PATH":"${one.dataDir}"}}}}`);
  });

  test("an entry of Signet's that changes is rewritten where it stands; nothing around it moves", () => {
    const ctx = context();
    const old = `{\n  "a": 1,\n  "mcpServers": {\n    "x": { "command": "x" },\n    "signet": { "command": "signet-mcp", "timeout": 5 }, // mine\n    "y": {}\n  },\n  "b": 2\n}\n`;
    write(ctx, { ".claude.json": old });
    applyPlan(planSetup("claude-code", ctx));
    const after = read(ctx, ".claude.json");
    expect(after).toStartWith('{\n  "a": 1,\n  "mcpServers": {\n    "x": { "command": "x" },\n    "signet": {\n      "command": "' + MCP + '",\n      "timeout": 5,');
    expect(after).toEndWith('\n    }, // mine\n    "y": {}\n  },\n  "b": 2\n}\n');
    // Taken out again, it goes with its line; what was around it stays.
    applyPlan(planSetup("claude-code", uninstall(ctx)));
    expect(read(ctx, ".claude.json")).toBe('{\n  "a": 1,\n  "mcpServers": {\n    "x": { "command": "x" }, // mine\n    "y": {}\n  },\n  "b": 2\n}\n');
  });
});

describe("containers: setup's go, the user's stay", () => {
  test("a container setup added is recorded and goes with the last entry; one found empty is the user's from then on", () => {
    const ctx = context();
    write(ctx, { ".claude.json": '{\n  "numStartups": 3\n}\n' });
    applyPlan(planSetup("claude-code", ctx));
    const record = JSON.parse(readFileSync(join(ctx.dataDir, ".daemon", "setup-created.json"), "utf8"));
    expect(record.containers).toContainEqual({ file: join(ctx.home, ".claude.json"), path: ["mcpServers"] });
    // As `claude mcp remove signet` leaves it: the user's now. Setup again, then --uninstall: it stays.
    writeFileSync(join(ctx.home, ".claude.json"), '{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n');
    applyPlan(planSetup("claude-code", ctx));
    applyPlan(planSetup("claude-code", uninstall(ctx)));
    expect(read(ctx, ".claude.json")).toBe('{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n');
    // Nothing of setup's is left to record.
    expect(existsSync(join(ctx.dataDir, ".daemon", "setup-created.json"))).toBe(false);
  });

  test("without a record (another data directory, or an older setup) an emptied container stays", () => {
    const ctx = context();
    write(ctx, { ".claude.json": '{\n  "numStartups": 3\n}\n' });
    applyPlan(planSetup("claude-code", ctx));
    const other = { ...uninstall(ctx), dataDir: join(dirname(ctx.dataDir), "other") };
    applyPlan(planSetup("claude-code", other));
    expect(read(ctx, ".claude.json")).toBe('{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n');
  });

  test("a dry run records nothing", () => {
    const ctx = context();
    write(ctx, { ".claude.json": "{}\n" });
    planSetup("claude-code", ctx);
    expect(existsSync(join(ctx.dataDir, ".daemon"))).toBe(false);
  });
});

describe("a key written twice on the way to Signet's entry is refused, naming the file and the key; nothing changes", () => {
  const cases: [HarnessName, string, string, string][] = [
    ["claude-code", ".claude.json", '{\n  "mcpServers": {"a": {"command": "a"}},\n  "x": 1,\n  "mcpServers": {"b": {"command": "b"}}\n}\n', '"mcpServers" is there 2 times (lines 2 and 4)'],
    ["claude-code", ".claude.json", '{"mcpServers": {"signet": {"command": "signet-mcp"}, "signet": {"command": "/old/signet-mcp"}}}', '"mcpServers.signet" is there 2 times (line 1)'],
    ["claude-code", ".claude/settings.json", '{\n  "hooks": {},\n  "hooks": {"Stop": []}\n}\n', '"hooks" is there 2 times (lines 2 and 3)'],
    ["claude-code", ".claude/settings.json", '{"hooks": {"SessionStart": [],\n "SessionStart": []}}\n', '"hooks.SessionStart" is there 2 times (lines 1 and 2)'],
    ["codex", ".codex/hooks.json", '{"hooks": {"SessionEnd": [], "SessionEnd": []}}', '"hooks.SessionEnd" is there 2 times'],
    ["opencode", ".config/opencode/opencode.json", '{"mcp": {}, "mcp": {"x": {}}}', '"mcp" is there 2 times'],
  ];
  for (const [harness, name, text, problem] of cases) {
    test(`${harness}: ${name} ${problem}`, () => {
      for (const ctx of [context(), uninstall(context())]) {
        write(ctx, { [name]: text });
        const home = listing(ctx);
        let error: unknown;
        try {
          applyPlan(planSetup(harness, ctx));
        } catch (err) {
          error = err;
        }
        // --uninstall of a file with nothing of Signet's in it has nothing to change, so nothing to refuse.
        if (!ctx.install && !text.includes("signet")) {
          expect(error).toBeUndefined();
          expect(read(ctx, name)).toBe(text);
          continue;
        }
        expect(error).toBeInstanceOf(HarnessConfigError);
        expect((error as Error).message).toStartWith(`${join(ctx.home, name)}: ${problem}`);
        expect((error as Error).message).toEndWith(" and the harness reads only the last; merge them into one, then run this again; nothing was changed");
        expect(read(ctx, name)).toBe(text);
        expect(listing(ctx)).toEqual(home);
      }
    });
  }

  test("--uninstall: Signet's entry in the copy the harness does not read is refused too, naming the key", () => {
    for (const [name, text, key] of [
      [".claude.json", '{"mcpServers": {"signet": {"command": "signet-mcp"}}, "mcpServers": {}}', '"mcpServers"'],
      [".claude/settings.json", '{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "/x/signet hook session-end"}]}]}, "hooks": {}}', '"hooks"'],
    ]) {
      const ctx = uninstall(context());
      write(ctx, { [name!]: text! });
      expect(() => planSetup("claude-code", ctx)).toThrow(`${join(ctx.home, name!)}: ${key} is there 2 times (line 1)`);
    }
  });

  test("a key written twice elsewhere is no matter", () => {
    const ctx = context();
    write(ctx, { ".claude.json": '{"theme": "a", "theme": "b"}' });
    applyPlan(planSetup("claude-code", ctx));
    expect(read(ctx, ".claude.json")).toStartWith('{"theme": "a", "theme": "b", "mcpServers": {"signet": ');
  });
});

describe("a server of the user's own named signet", () => {
  const cases: [HarnessName, string, string, string][] = [
    ["claude-code", ".claude.json", '{\n  "mcpServers": {\n    "signet": {"type": "http", "url": "https://signet.example.com/mcp"}\n  }\n}\n', "mcpServers.signet"],
    ["codex", ".codex/config.toml", '[mcp_servers.signet]\nurl = "https://signet.example.com/mcp"\n', "[mcp_servers.signet]"],
    ["opencode", ".config/opencode/opencode.json", '{"mcp": {"signet": {"type": "remote", "url": "https://signet.example.com/mcp"}}}', "mcp.signet"],
    ["opencode", ".config/opencode/opencode.jsonc", '{\n  "mcp": {\n    "signet": {"type": "local", "command": ["my-signet"]},\n  },\n}\n', "mcp.signet"],
  ];
  for (const [harness, name, text, entry] of cases) {
    test(`${harness}: setup refuses to write over ${entry} in ${name}; --uninstall keeps it and says so`, () => {
      const ctx = context();
      write(ctx, { [name]: text });
      expect(() => planSetup(harness, ctx)).toThrow(
        `${join(ctx.home, name)}: ${entry} is a server of your own, not Signet's (it does not run signet-mcp): rename or remove it, then run this again; nothing was changed`,
      );
      expect(listing(ctx)).toEqual([...new Set(name.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/")))].sort());

      const plan = planSetup(harness, uninstall(ctx));
      expect(plan.files.map((f) => f.action).filter((a) => a !== "unchanged")).toEqual([]);
      expect(plan.notes).toContain(`kept ${entry} in ${join(ctx.home, name)}: it is a server of your own, not Signet's (it does not run signet-mcp)`);
      applyPlan(plan);
      expect(read(ctx, name)).toBe(text);
    });
  }

  test("opencode: one in opencode.json, under the .jsonc setup writes to, is refused too (OpenCode would merge the two)", () => {
    const ctx = context();
    write(ctx, { ".config/opencode/opencode.json": '{"mcp": {"signet": {"type": "remote", "url": "https://x"}}}', ".config/opencode/opencode.jsonc": "{}\n" });
    expect(() => planSetup("opencode", ctx)).toThrow(`${join(ctx.home, ".config/opencode/opencode.json")}: mcp.signet is a server of your own`);
  });

  test("claude-code: one in settings.json (where Claude Code reads no servers) stays, setup or not", () => {
    const ctx = context();
    const own = '{"mcpServers": {"signet": {"type": "http", "url": "https://signet.example.com/mcp"}}}';
    write(ctx, { ".claude/settings.json": own });
    applyPlan(planSetup("claude-code", ctx));
    expect(readJsonObject(read(ctx, ".claude/settings.json")).mcpServers).toEqual(JSON.parse(own).mcpServers);
    applyPlan(planSetup("claude-code", uninstall(ctx)));
    expect(read(ctx, ".claude/settings.json")).toBe(own);
  });

  test("Signet's own entry, by any path to signet-mcp, is still Signet's to update and remove", () => {
    const ctx = context();
    write(ctx, { ".codex/config.toml": '[mcp_servers.signet]\ncommand = "/usr/local/bin/signet-mcp"\n' });
    applyPlan(planSetup("codex", ctx));
    expect((parseToml(read(ctx, ".codex/config.toml")) as any).mcp_servers.signet.command).toBe(MCP);
    applyPlan(planSetup("codex", uninstall(ctx)));
    expect(read(ctx, ".codex/config.toml")).toBe("");
  });
});

describe("generated configs: every mix of layouts gives back the same text", () => {
  /** A small seeded generator (mulberry32): the same documents every run. */
  function random(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = Math.imul(s ^ (s >>> 15), s | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  type Value = number | string | Value[] | { [key: string]: Value };

  /** `value` as JSONC laid out at random: on one line or over lines, comments, trailing commas, empty containers in every form. */
  function layout(rnd: () => number, value: Value, indent: string, unit: string, eol: string, spaced: boolean): string {
    const pick = <T>(options: T[]) => options[Math.floor(rnd() * options.length)]!;
    if (typeof value !== "object") return JSON.stringify(value);
    const items: [string | undefined, Value][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    const inner = indent + unit;
    if (items.length === 0) {
      const over = unit === "" ? [] : [`${open}${eol}${inner}// empty${eol}${indent}${close}`, `${open} // to do${eol}${indent}${close}`];
      return pick([`${open}${close}`, `${open} ${close}`, `${open}/* none */${close}`, ...over]);
    }
    const trailing = rnd() < 0.2 ? "," : "";
    const key = (k: string | undefined) => (k === undefined ? "" : `${JSON.stringify(k)}:${spaced || unit ? " " : ""}`);
    if (unit === "" || rnd() < 0.3) {
      const parts = items.map(([k, v]) => key(k) + layout(rnd, v, indent, "", eol, spaced) + (rnd() < 0.1 ? " /* c */" : ""));
      return open + parts.join(spaced ? ", " : ",") + trailing + close;
    }
    const lines = items.map(
      ([k, v], i) =>
        (rnd() < 0.15 ? `${inner}// about ${i}${eol}` : "") + inner + key(k) + layout(rnd, v, inner, unit, eol, spaced) + (i < items.length - 1 ? "," : trailing) + (rnd() < 0.1 ? " // tail" : ""),
    );
    return open + eol + lines.join(eol) + eol + indent + close;
  }

  function config(rnd: () => number): Value {
    const doc: Record<string, Value> = {};
    for (const key of ["numStartups", "mcpServers", "hooks", "projects"]) {
      if (rnd() < 0.4) continue;
      if (key === "mcpServers") doc[key] = Object.fromEntries(["github", "other"].filter(() => rnd() < 0.5).map((n) => [n, { command: n, args: [] }]));
      else if (key === "hooks") doc[key] = Object.fromEntries(["PreToolUse", "SessionStart", "SessionEnd"].filter(() => rnd() < 0.5).map((e) => [e, rnd() < 0.4 ? [] : [{ hooks: [{ type: "command", command: "mine" }] }]]));
      else doc[key] = key === "projects" ? { "/a": { allowed: [1, 2] } } : 3;
    }
    return doc;
  }

  test("500 configs: the MCP entry and the hooks go in and come out again, leaving the text as it was", () => {
    const rnd = random(20240601);
    const pick = <T>(options: T[]) => options[Math.floor(rnd() * options.length)]!;
    const values = { signet: SIGNET, harness: "claude-code" as const, target: { SIGNET_PATH: "/data" } };
    const entry = { type: "stdio", command: MCP, args: [], env: { SIGNET_PATH: "/data" } };
    for (let n = 0; n < 500; n++) {
      const eol = pick(["\n", "\r\n"]);
      let text = layout(rnd, config(rnd), "", pick(["", "  ", "    ", "\t"]), eol, rnd() < 0.5) + (rnd() < 0.6 ? eol : "");
      if (rnd() < 0.1) text = `// mine${eol}${text}`;
      if (rnd() < 0.2) text = `\uFEFF${text}`;
      // Setup's record: the containers that were not there before.
      const created = (path: readonly string[]) => containerState(text, path) === "absent";
      const withEntry = editJsonEntry(text, "mcpServers", "signet", () => entry, "JSONC")!;
      const withHooks = editHooks(text, COMMAND_HOOKS, values)!;
      const seen = { n, text, entry: onlyInserted(text, withEntry), hooks: onlyInserted(text, withHooks) };
      expect(seen).toEqual({ n, text, entry: true, hooks: true });
      expect((readJsonObject(withEntry, "JSONC").mcpServers as Record<string, unknown>).signet).toEqual(entry);
      expect(Object.keys(readJsonObject(withHooks, "JSONC").hooks as object)).toEqual(expect.arrayContaining(COMMAND_HOOKS.map((h) => h.harnessEvent)));
      expect(editHooks(withHooks, COMMAND_HOOKS, values)).toBe(withHooks);
      const back = { n, entry: editJsonEntry(withEntry, "mcpServers", "signet", () => undefined, "JSONC", created), hooks: editHooks(withHooks, COMMAND_HOOKS, undefined, created) };
      expect(back).toEqual({ n, entry: text, hooks: text });
    }
  });
});
