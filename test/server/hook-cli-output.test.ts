// What `signet hook` prints (docs/hooks.md, docs/security.md#input-bounds), run from source against a
// test daemon as a harness runs it: a memory holding bidi, C1 and DEL characters reaches every output
// format escaped, never raw; and what it says on stderr when a transcript file cannot be read.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { tempDir } from "../helpers/daemon";
import { useTestDaemon } from "../helpers/memory-api";

const MAIN = resolve(import.meta.dir, "../../src/main.ts");
const AGENT = "hook-output";
const daemon = useTestDaemon();

/** `signet hook <event> --harness <harness>` fed `stdin`: its exit code, stdout and stderr. */
async function hook(event: string, harness: string, stdin: Record<string, unknown>) {
  const proc = Bun.spawn([process.execPath, MAIN, "hook", event, "--harness", harness, "--data-dir", daemon().dataDir], {
    env: { PATH: process.env.PATH ?? "", HOME: daemon().dataDir, SIGNET_DAEMON_URL: daemon().url, SIGNET_AUTOSTART: "false", SIGNET_AGENT_ID: AGENT },
    stdin: new TextEncoder().encode(JSON.stringify(stdin)),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

// DEL, the C1 controls and the bidi characters: what JSON.stringify leaves raw.
const RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const CONTENT = "Build server is \u202eheron\u202c \u009b\u007f \u2067pinned\u2069";

describe("signet hook output", () => {
  test("a memory's bidi, C1 and DEL characters are escaped in every format: JSON that parses to the memory, plain text that shows them", async () => {
    await daemon().client(AGENT).memory.remember({ content: CONTENT, type: "rule", pinned: true });
    const additionalContext = (stdout: string) => JSON.parse(stdout).hookSpecificOutput.additionalContext as string;
    const outputs: [string, string, (stdout: string) => string][] = [
      ["session-start", "claude-code", additionalContext],
      ["session-start", "codex", additionalContext],
      ["session-start", "opencode", (stdout) => JSON.parse(stdout).context],
      ["user-prompt-submit", "claude-code", additionalContext],
      ["user-prompt-submit", "codex", additionalContext],
      ["user-prompt-submit", "opencode", (stdout) => JSON.parse(stdout).context],
      ["pre-compaction", "opencode", (stdout) => JSON.parse(stdout).context],
    ];
    for (const [event, harness, contextOf] of outputs) {
      const session = `${event}-${harness}`;
      if (event !== "session-start") await hook("session-start", harness, { session_id: session, cwd: "/tmp/p1" });
      const r = await hook(event, harness, { session_id: session, cwd: "/tmp/p1", prompt: "which build server is heron?" });
      expect({ event, harness, code: r.code, stderr: r.stderr, raw: RAW.test(r.stdout) }).toEqual({ event, harness, code: 0, stderr: "", raw: false });
      expect(r.stdout).toContain("Build server is \\u202eheron\\u202c \\u009b\\u007f \\u2067pinned\\u2069");
      expect(contextOf(r.stdout)).toContain(CONTENT);
    }
    // Claude Code reads PreCompact's stdout as plain text: the characters are shown, as the CLI shows them.
    await hook("session-start", "claude-code", { session_id: "compact", cwd: "/tmp/p1" });
    const r = await hook("pre-compaction", "claude-code", { session_id: "compact", cwd: "/tmp/p1" });
    expect({ code: r.code, stderr: r.stderr, raw: RAW.test(r.stdout) }).toEqual({ code: 0, stderr: "", raw: false });
    expect(r.stdout).toStartWith("# Signet: memories to keep across the compaction\n");
    expect(r.stdout).toContain("Build server is \\u202eheron\\u202c \\x9b\\x7f \\u2067pinned\\u2069");
  }, 60_000);

  test("a transcript file that cannot be read: the hook says it goes on without it, and does", async () => {
    const missing = join(tempDir("signet-hook-"), "gone.jsonl");
    await hook("session-start", "claude-code", { session_id: "no-transcript", cwd: "/tmp/p1" });
    const compact = await hook("pre-compaction", "claude-code", { session_id: "no-transcript", cwd: "/tmp/p1", transcript_path: missing });
    expect(compact.code).toBe(0);
    expect(compact.stderr).toStartWith(`signet hook: cannot read the transcript ${missing}: `);
    expect(compact.stderr).toEndWith("; pre-compaction is sent without it\n");
    expect(compact.stderr).not.toContain("session ends");
    // The compaction's context still comes: the session goes on.
    expect(compact.stdout).toContain("# Signet: memories to keep across the compaction");
    const end = await hook("session-end", "claude-code", { session_id: "no-transcript", cwd: "/tmp/p1", transcript_path: missing });
    expect({ code: end.code, stdout: end.stdout }).toEqual({ code: 0, stdout: "" });
    expect(end.stderr).toEndWith("; session-end is sent without it\n");
  }, 60_000);
});
