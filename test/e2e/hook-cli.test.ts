// `signet hook` as the compiled binary, fed the hook JSON a harness writes (docs/hooks.md): what it
// prints for each harness, and that nothing a harness might hand it makes it fail the harness.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignetClient } from "../../src/client/client";
import { run, sandbox, type Sandbox } from "../helpers/binary";

let s: Sandbox;
const hook = (event: string, harness: string, stdin: string, extra: string[] = []) => run(["hook", event, "--harness", harness, ...extra], { env: s.env, stdin });
const payload = (fields: Record<string, unknown>) => JSON.stringify({ cwd: "/work/proj", hook_event_name: "UserPromptSubmit", ...fields });

beforeAll(async () => {
  s = await sandbox();
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
  expect((await run(["remember", "Deploys to production need the change-freeze calendar checked first"], { env: s.env })).code).toBe(0);
}, 60_000);

afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
});

describe("signet hook", () => {
  test("claude-code and codex get hookSpecificOutput.additionalContext; opencode gets {context, memoryIds}", async () => {
    for (const harness of ["claude-code", "codex"]) {
      const r = await hook("user-prompt-submit", harness, payload({ session_id: `s-${harness}`, prompt: "what do production deploys need?" }));
      expect(r).toMatchObject({ code: 0, stderr: "" });
      const out = JSON.parse(r.stdout);
      expect(out.hookSpecificOutput.hookEventName).toBe("UserPromptSubmit");
      expect(out.hookSpecificOutput.additionalContext).toContain("change-freeze calendar");
    }
    const r = await hook("user-prompt-submit", "opencode", payload({ session_id: "s-oc", prompt: "what do production deploys need?" }));
    const out = JSON.parse(r.stdout);
    expect(out.context).toContain("change-freeze calendar");
    expect(out.memoryIds).toHaveLength(1);
  }, 60_000);

  test("session-end sends the transcript file as turns, and the session becomes searchable", async () => {
    const transcript = join(s.home, "transcript.jsonl");
    writeFileSync(
      transcript,
      [
        { type: "user", message: { role: "user", content: "Rename the flamingo module" } },
        { type: "assistant", message: { content: [{ type: "text", text: "Renamed flamingo to heron." }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    const r = await hook("session-end", "claude-code", payload({ session_id: "s-end", hook_event_name: "SessionEnd", transcript_path: transcript }));
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const client = new SignetClient({ baseUrl: `http://127.0.0.1:${s.port}`, dataDir: s.dataDir, actor: "test" });
    expect((await client.sessions.get("s-end")).hasTranscript).toBe(true);
    const hits = (await client.sessions.search({ query: "flamingo" })).hits;
    expect(hits[0]).toMatchObject({ sessionKey: "s-end", project: "/work/proj" });
    expect(hits[0]!.excerpt.toLowerCase()).toContain("flamingo");
  }, 60_000);

  test("bad stdin, or an answer the daemon refuses: nothing on stdout, one line on stderr, exit 0", async () => {
    for (const stdin of ["", "not json", "[1,2]", '{"cwd":"/x"}']) {
      const r = await hook("user-prompt-submit", "claude-code", stdin);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toStartWith("signet hook: ");
    }
    // More than a hook reads (32 MiB): refused by its size.
    const huge = await hook("user-prompt-submit", "claude-code", " ".repeat(32 * 1024 * 1024 + 1));
    expect(huge).toMatchObject({ code: 0, stdout: "" });
    expect(huge.stderr.trim()).toBe(`signet hook: stdin is larger than ${32 * 1024 * 1024} bytes; nothing was done`);
    // A session key the daemon refuses (over 500 characters).
    const refused = await hook("user-prompt-submit", "claude-code", payload({ session_id: "k".repeat(600), prompt: "x" }));
    expect(refused).toMatchObject({ code: 0, stdout: "" });
    expect(refused.stderr).toContain("the daemon refused user-prompt-submit");
  }, 60_000);

  test("a token file that cannot be used: nothing on stdout, one line naming it on stderr, exit 0", async () => {
    const open = join(s.home, "open.token");
    writeFileSync(open, "sgt_whatever\n", { mode: 0o644 });
    chmodSync(open, 0o644);
    for (const [file, problem] of [
      [open, "other accounts may read or change it (mode 0644)"],
      [join(s.home, "missing.token"), "no such file"],
    ]) {
      const r = await hook("session-start", "claude-code", payload({ session_id: "s-file" }), ["--token-file", file!]);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "" });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      // Named as the hook was given it: the flag setup wrote, not the variable it stands in for.
      expect(r.stderr).toContain(`--token-file ${file}: ${problem}`);
      expect(r.stderr).not.toContain("SIGNET_TOKEN_FILE");
    }
  });

  test("a wrong command line is a usage error (exit 2)", async () => {
    for (const args of [["hook", "bogus", "--harness", "claude-code"], ["hook", "session-start", "--harness", "vim"], ["hook", "session-start"], ["hook", "session-start", "--harness", "codex", "--nope"]]) {
      const r = await run(args, { env: s.env, stdin: "{}" });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
    }
    const unknown = await run(["hook", "session-start", "--harness", "codex", "--nope"], { env: s.env, stdin: "{}" });
    expect(unknown.stderr).toContain("valid options: --harness, --data-dir, --url, --token-file, --agent");
    const bare = await run(["hook", "session-start", "--harness", "codex", "--url"], { env: s.env, stdin: "{}" });
    expect(bare).toMatchObject({ code: 2, stdout: "" });
    expect(bare.stderr).toContain("--url needs a value");
  });
});
