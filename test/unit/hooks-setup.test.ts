// The lifecycle hooks `signet setup` installs (docs/hooks.md), and what `signet hook` reads and
// prints for each harness: real files in a temporary home, a real shell for the quoting.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hookCommand, isSignetHookCommand, shellQuote } from "../../src/harness/hook-command";
import { printedHookOutput } from "../../src/cli/hook";
import type { HookEvent } from "../../src/contracts/hook-events";
import { COMMAND_HOOKS, hookOutput, parseHookInput } from "../../src/harness/hook-io";
import { readJsonObject } from "../../src/harness/json-edit";
import { isSignetPlugin } from "../../src/harness/opencode-plugin";
import { applyPlan, planSetup } from "../../src/harness/plan";
import { editHooks } from "../../src/harness/hooks-json";
import { boundTranscript, readTranscriptFile, transcriptText } from "../../src/harness/transcript";
import { tempDir } from "../helpers/temp-cleanup";
import type { HarnessContext, HarnessName } from "../../src/harness/types";

const SIGNET = "/opt/it's here/bin/signet";

function context(): HarnessContext {
  const root = tempDir("signet-hooks-");
  const home = join(root, "home");
  mkdirSync(home);
  return {
    home,
    env: { PATH: "" },
    dataDir: join(root, "agents dir"),
    install: { command: "/opt/bin/signet-mcp", signet: SIGNET, daemonUrl: "http://127.0.0.1:3850" },
  };
}

/** The words a POSIX shell makes of a command line. */
function shellWords(command: string): string[] {
  const out = Bun.spawnSync(["sh", "-c", `set -- ${command}; printf '%s\\0' "$@"`]);
  return out.stdout.toString().split("\0").slice(0, -1);
}

describe("hook commands", () => {
  test("every value is one quoted shell word, whatever it holds", () => {
    const command = hookCommand(SIGNET, "user-prompt-submit", "claude-code", { SIGNET_PATH: "/data/$HOME `x` ;rm" });
    expect(shellWords(command)).toEqual([SIGNET, "hook", "user-prompt-submit", "--harness", "claude-code", "--data-dir", "/data/$HOME `x` ;rm"]);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
    const target = { SIGNET_PATH: "/d", SIGNET_DAEMON_URL: "http://10.1.2.3:4000", SIGNET_TOKEN_FILE: "/d/it's $x.token", SIGNET_AGENT_ID: "me@host" };
    expect(shellWords(hookCommand(SIGNET, "session-end", "codex", target))).toEqual([
      SIGNET,
      "hook",
      "session-end",
      "--harness",
      "codex",
      "--data-dir",
      "/d",
      "--url",
      "http://10.1.2.3:4000",
      "--token-file",
      "/d/it's $x.token",
      "--agent",
      "me@host",
    ]);
  });

  test("Signet's commands are told from the user's", () => {
    expect(isSignetHookCommand(hookCommand(SIGNET, "session-end", "codex", { SIGNET_PATH: "/d" }))).toBe(true);
    expect(isSignetHookCommand("/usr/local/bin/signet hook session-start --harness claude-code")).toBe(true);
    expect(isSignetHookCommand("signet-helper hook session-start")).toBe(false);
    expect(isSignetHookCommand("/usr/bin/signet remember x")).toBe(false);
    expect(isSignetHookCommand("echo hello")).toBe(false);
    expect(isSignetHookCommand(42)).toBe(false);
  });
});

describe("claude-code and codex hooks", () => {
  test("claude-code: the five events in settings.json beside the user's own hooks; idempotent; --uninstall leaves the user's", () => {
    const ctx = context();
    const settings = join(ctx.home, ".claude", "settings.json");
    mkdirSync(dirname(settings));
    const mine = { hooks: [{ type: "command", command: "echo mine" }] };
    const mixed = { matcher: "", hooks: [{ type: "command", command: "echo also" }, { type: "command", command: "/old/signet hook session-end --harness claude-code" }] };
    writeFileSync(settings, JSON.stringify({ theme: "dark", hooks: { UserPromptSubmit: [mine], SessionEnd: [mixed], Stop: [mine] } }, null, 2));
    applyPlan(planSetup("claude-code", ctx));
    const data = readJsonObject(readFileSync(settings, "utf8")) as { theme: string; hooks: Record<string, { hooks: { type: string; command: string; timeout: number }[] }[]> };
    expect(data.theme).toBe("dark");
    expect(data.hooks.Stop).toEqual([mine] as never);
    expect(data.hooks.UserPromptSubmit![0]).toEqual(mine as never);
    // The old Signet handler leaves the user's group; Signet's own group is added.
    expect(data.hooks.SessionEnd![0]).toEqual({ matcher: "", hooks: [{ type: "command", command: "echo also" }] } as never);
    for (const { harnessEvent, event, timeoutS } of COMMAND_HOOKS) {
      const ours = data.hooks[harnessEvent]!.at(-1)!.hooks;
      expect(ours).toEqual([{ type: "command", command: hookCommand(SIGNET, event, "claude-code", { SIGNET_PATH: ctx.dataDir }), timeout: timeoutS }]);
    }
    expect(planSetup("claude-code", ctx).files.map((f) => f.action)).toEqual(["unchanged", "unchanged"]);

    applyPlan(planSetup("claude-code", { ...ctx, install: undefined }));
    const left = readJsonObject(readFileSync(settings, "utf8"));
    expect(left).toEqual({ theme: "dark", hooks: { UserPromptSubmit: [mine], SessionEnd: [{ matcher: "", hooks: [{ type: "command", command: "echo also" }] }], Stop: [mine] } } as never);
  });

  test("a signet binary by another name: its groups are found in place, so setup ends and a second run changes nothing", () => {
    const values = { signet: "/opt/signet-v2-linux-x64", harness: "codex" as const, target: { SIGNET_PATH: "/d" } };
    const once = editHooks('{\n  "hooks": {}\n}\n', COMMAND_HOOKS, values)!;
    expect(Object.keys((readJsonObject(once) as { hooks: object }).hooks)).toEqual(COMMAND_HOOKS.map((h) => h.harnessEvent));
    expect(editHooks(once, COMMAND_HOOKS, values)).toBe(once);
  });

  test("a hooks value that is not what Claude Code reads is refused, naming the file", () => {
    const ctx = context();
    const settings = join(ctx.home, ".claude", "settings.json");
    mkdirSync(dirname(settings));
    writeFileSync(settings, JSON.stringify({ hooks: { SessionStart: "nope" } }));
    expect(() => planSetup("claude-code", ctx)).toThrow(`${settings}: "hooks.SessionStart" is not a list; nothing was changed`);
  });

  test("codex: hooks.json beside config.toml, and a note that Codex wants them trusted", () => {
    const ctx = context();
    const plan = planSetup("codex", ctx);
    const hooks = plan.files.find((f) => f.path === join(ctx.home, ".codex", "hooks.json"))!;
    const data = readJsonObject(hooks.after!) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(Object.keys(data)).toEqual(["hooks"]);
    expect(data.hooks.UserPromptSubmit![0]!.hooks[0]!.command).toBe(hookCommand(SIGNET, "user-prompt-submit", "codex", { SIGNET_PATH: ctx.dataDir }));
    expect(plan.notes.join("\n")).toContain("/hooks");
  });

  test("a daemon URL, token file and agent given to setup are in every hook command, as in the MCP entry; no note is left", () => {
    const ctx = context();
    const install = { ...ctx.install!, daemonUrl: "http://10.1.2.3:3850", tokenFile: "/t/claude-code.token", agentId: "bot" };
    for (const harness of ["claude-code", "codex"] as const) {
      const plan = planSetup(harness, { ...ctx, install });
      const hooks = plan.files.find((f) => /(settings|hooks)\.json$/.test(f.path))!;
      const data = readJsonObject(hooks.after!) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
      for (const { harnessEvent, event } of COMMAND_HOOKS) {
        expect(data.hooks[harnessEvent]!.at(-1)!.hooks[0]!.command).toBe(
          hookCommand(SIGNET, event, harness, { SIGNET_PATH: ctx.dataDir, SIGNET_DAEMON_URL: "http://10.1.2.3:3850", SIGNET_TOKEN_FILE: "/t/claude-code.token", SIGNET_AGENT_ID: "bot" }),
        );
      }
      expect(plan.notes.join("\n")).not.toContain("SIGNET_DAEMON_URL");
    }
    const plugin = planSetup("opencode", { ...ctx, install }).files.find((f) => f.path.endsWith("signet.js"))!.after!;
    expect(plugin).toContain(`const FLAGS = ${JSON.stringify(["--data-dir", ctx.dataDir, "--url", "http://10.1.2.3:3850", "--token-file", "/t/claude-code.token", "--agent", "bot"])};`);
  });
});

describe("opencode plugin", () => {
  test("written whole, rewritten in step, deleted by --uninstall; a file of the user's is never overwritten", () => {
    const ctx = context();
    const plugin = join(ctx.home, ".config", "opencode", "plugins", "signet.js");
    applyPlan(planSetup("opencode", ctx));
    const text = readFileSync(plugin, "utf8");
    expect(isSignetPlugin(text)).toBe(true);
    expect(text).toContain(`const SIGNET = ${JSON.stringify(SIGNET)};`);
    expect(planSetup("opencode", ctx).files.map((f) => f.action)).toEqual(["unchanged", "unchanged"]);
    applyPlan(planSetup("opencode", { ...ctx, install: undefined }));
    expect(() => readFileSync(plugin)).toThrow();

    mkdirSync(dirname(plugin), { recursive: true });
    writeFileSync(plugin, "export const Mine = async () => ({})\n");
    expect(() => planSetup("opencode", ctx)).toThrow(/not the plugin signet setup writes/);
    expect(planSetup("opencode", { ...ctx, install: undefined }).files.find((f) => f.path === plugin)?.action ?? "unchanged").toBe("unchanged");
  });
});

describe("hook input and output", () => {
  test("a harness's hook JSON; anything else is a short error", () => {
    expect(parseHookInput('{"session_id":"s","cwd":"/p","prompt":"hi","transcript_path":"/t","hook_event_name":"UserPromptSubmit"}')).toEqual({
      sessionKey: "s",
      project: "/p",
      prompt: "hi",
      transcriptPath: "/t",
    });
    expect(() => parseHookInput("")).toThrow("no hook JSON on stdin");
    expect(() => parseHookInput("not json")).toThrow("stdin is not JSON");
    expect(() => parseHookInput("[1]")).toThrow("not a JSON object");
    expect(() => parseHookInput('{"cwd":"/p"}')).toThrow('"session_id" is missing');
    expect(() => parseHookInput('{"session_id":5}')).toThrow('"session_id" is not a string');
  });

  test("each harness gets its own output; nothing when there is no context", () => {
    const answer = { context: "remember X", memoryIds: ["m1"], window: 0 };
    const printed = (harness: HarnessName, event: HookEvent, a = answer) => {
      const out = hookOutput(harness, event, a);
      return out === undefined ? undefined : printedHookOutput(out);
    };
    expect(JSON.parse(printed("claude-code", "user-prompt-submit")!)).toEqual({
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "remember X" },
    });
    expect(JSON.parse(printed("codex", "session-start")!)).toEqual({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "remember X" } });
    // Claude Code takes PreCompact's plain stdout as instructions for the summary; Codex has no such input.
    expect(printed("claude-code", "pre-compaction")).toBe("remember X");
    expect(printed("codex", "pre-compaction")).toBeUndefined();
    expect(printed("claude-code", "session-end")).toBeUndefined();
    expect(JSON.parse(printed("opencode", "pre-compaction")!)).toEqual({ context: "remember X", memoryIds: ["m1"] });
    expect(printed("claude-code", "session-start", { ...answer, context: "  " })).toBeUndefined();
  });

  test("no output carries a raw DEL, C1, bidi or other control character: JSON escapes them and parses to the same text; plain text shows them", () => {
    const context = "Build server is \u202eheron\u202c \u009b\u007f, \u2066isolated\u2069 \u061c\u200e\u200f \u001b[31mred\u0007\ttab\nnext";
    const answer = { context, memoryIds: ["m1"], window: 0 };
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    const outputs: [HarnessName, HookEvent, (parsed: unknown) => unknown][] = [
      ["claude-code", "session-start", (o) => (o as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext],
      ["claude-code", "user-prompt-submit", (o) => (o as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext],
      ["codex", "session-start", (o) => (o as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext],
      ["codex", "user-prompt-submit", (o) => (o as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext],
      ["opencode", "session-start", (o) => (o as { context: string }).context],
      ["opencode", "user-prompt-submit", (o) => (o as { context: string }).context],
      ["opencode", "pre-compaction", (o) => (o as { context: string }).context],
    ];
    for (const [harness, event, contextOf] of outputs) {
      const text = printedHookOutput(hookOutput(harness, event, answer)!);
      expect({ harness, event, raw: raw.test(text) }).toEqual({ harness, event, raw: false });
      expect(text).toContain("\\u202eheron\\u202c \\u009b\\u007f");
      expect(contextOf(JSON.parse(text))).toBe(context);
    }
    // Claude Code's PreCompact reads plain text: the characters shown as escapes, tabs and line breaks kept.
    const plain = printedHookOutput(hookOutput("claude-code", "pre-compaction", answer)!);
    expect(plain).toBe("Build server is \\u202eheron\\u202c \\x9b\\x7f, \\u2066isolated\\u2069 \\u061c\\u200e\\u200f \\x1b[31mred\\x07\ttab\nnext");
  });

  test("only a regular file is read as a transcript: a FIFO is refused at once, never waited on", () => {
    const dir = tempDir("signet-transcript-");
    const file = join(dir, "t.jsonl");
    writeFileSync(file, "plain words\n");
    expect(readTranscriptFile(file)).toBe("plain words\n");
    // Opening a FIFO for reading waits for a writer, and none comes: read in a child process, so
    // that a read that waits fails this test (the child is ended) rather than hanging the run.
    const fifo = join(dir, "t.fifo");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const module = join(import.meta.dir, "../../src/harness/transcript.ts");
    const script = `import { readTranscriptFile } from ${JSON.stringify(module)};\ntry { readTranscriptFile(${JSON.stringify(fifo)}); } catch (err) { console.log(err.message); }`;
    const child = Bun.spawnSync([process.execPath, "-e", script], { timeout: 20_000 });
    expect(child.stdout.toString()).toBe("it is not a regular file\n");
    expect(() => readTranscriptFile(dir)).toThrow("it is a directory");
    expect(() => readTranscriptFile(join(dir, "missing"))).toThrow("ENOENT");
  });

  test("transcripts of Claude Code and Codex as turns; other text as it is; bounded at the end", () => {
    const claude = [
      { type: "user", message: { role: "user", content: "where is the config?" } },
      { type: "assistant", message: { content: [{ type: "text", text: "Looking." }, { type: "tool_use", name: "Read", input: { path: "/a" } }] } },
      { type: "user", message: { content: [{ type: "tool_result", content: [{ type: "text", text: "file body" }] }] } },
      { type: "user", isMeta: true, message: { content: "hook context" } },
      { type: "summary", summary: "x" },
    ];
    expect(transcriptText(claude.map((l) => JSON.stringify(l)).join("\n"))).toBe(
      'user: where is the config?\nassistant: Looking.\n[tool Read {"path":"/a"}]\nuser: [tool result file body]',
    );
    const codex = [
      { type: "session_meta", payload: { id: "x" } },
      { type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] } },
      { type: "response_item", payload: { type: "message", role: "developer", content: [{ type: "input_text", text: "rules" }] } },
      { type: "response_item", payload: { type: "function_call", name: "shell", arguments: '{"cmd":"ls"}' } },
      { type: "response_item", payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] } },
    ];
    expect(transcriptText(codex.map((l) => JSON.stringify(l)).join("\n"))).toBe('user: hi\nassistant: [tool shell {"cmd":"ls"}]\nassistant: done');
    expect(transcriptText("plain words")).toBe("plain words");
    const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const bounded = boundTranscript(long, 60);
    expect(bounded.length).toBeLessThanOrEqual(60);
    expect(bounded).toStartWith("[earlier part of the transcript left out]\n");
    expect(bounded).toEndWith("line 99");
  });
});
