// The memory commands of the compiled CLI against a real daemon: output rules and exit codes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";

let s: Sandbox;
const cli = (args: string[], stdin?: string) => run(args, { env: s.env, stdin });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("signet memory commands", () => {
  test("remember → get → list → modify → forget → recover → history", async () => {
    const made = await cli([
      "remember",
      "The build uses Bun.",
      "--type",
      "decision",
      "--importance",
      "0.8",
      "--tags",
      "tooling,build",
      "--project",
      "/src/app",
      "--hints",
      "which bundler|what runtime",
    ]);
    expect(made.code).toBe(0);
    const m = json(made);
    expect(m).toMatchObject({
      content: "The build uses Bun.",
      type: "decision",
      importance: 0.8,
      tags: ["tooling", "build"],
      project: "/src/app",
      hints: ["which bundler", "what runtime"],
      source: "cli",
      deduped: false,
      version: 1,
    });

    const dup = json(await cli(["remember", "the build uses bun", "--project", "/src/app"]));
    expect(dup).toMatchObject({ id: m.id, deduped: true });

    const got = json(await cli(["get", m.id]));
    expect(got.history).toHaveLength(1);
    expect(got.history[0]).toMatchObject({ action: "create", actor: "cli" });

    const listed = json(await cli(["list", "--tags", "build", "--type", "decision"]));
    expect(listed.memories.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect(json(await cli(["list", "--tags", "buil"])).memories).toEqual([]);

    const changed = json(await cli(["modify", m.id, "--reason", "be precise", "--content", "The build uses Bun 1.4", "--pinned"]));
    expect(changed).toMatchObject({ version: 2, pinned: true, content: "The build uses Bun 1.4" });

    const pinned = await cli(["forget", m.id, "--reason", "obsolete"]);
    expect(pinned.code).toBe(1);
    // In the CLI's words: its flags, not the API's fields.
    expect(pinned.stderr).toContain(`unpin it first (signet modify ${m.id} --no-pinned --reason ...), or add --force to forget it anyway`);
    expect(pinned.stderr).not.toContain("force=true");
    expect(pinned.stderr).not.toContain("pinned=false");

    const forgotten = json(await cli(["forget", m.id, "--reason", "obsolete", "--force"]));
    expect(forgotten.deletedAt).not.toBeNull();
    expect(json(await cli(["list"])).memories.map((x: { id: string }) => x.id)).not.toContain(m.id);

    const back = json(await cli(["recover", m.id, "--reason", "still true"]));
    expect(back.deletedAt).toBeNull();

    const hist = json(await cli(["history", m.id]));
    expect(hist.history.map((h: { action: string }) => h.action)).toEqual(["create", "modify", "forget", "recover"]);
    expect(hist.history[1]).toMatchObject({ reason: "be precise", content: "The build uses Bun 1.4" });
    expect(hist.history[0].content).toBe("The build uses Bun.");
  });

  test("recall with filters, as JSON and as a brief", async () => {
    const hit = json(await cli(["remember", "The staging database runs Postgres 16", "--project", "/srv/api", "--tags", "db"]));
    json(await cli(["remember", "The staging cache runs Redis", "--project", "/srv/other"]));
    const r = json(await cli(["recall", "which database does staging use?", "--project", "/srv/api", "--tags", "db"]));
    expect(r.results.map((x: { id: string }) => x.id)).toEqual([hit.id]);
    expect(r.meta).toMatchObject({ method: "keyword", embedding: "disabled" });
    const brief = await cli(["recall", "staging database", "--pretty", "--limit", "1"]);
    expect(brief.stdout).toContain("Postgres 16");
    expect(brief.stdout).toContain("Primary matches (1)");
    expect(brief.stdout).toContain("embedding disabled");
    const none = await cli(["recall", "zzzqqq", "--pretty"]);
    expect(none.stdout).toContain("ask with a broader query");
    // The daemon checks the request and its refusal names the field: exit 2.
    const tooFew = await cli(["recall", "x", "--limit", "0"]);
    expect(tooFew.code).toBe(2);
    expect(tooFew.stderr).toContain("limit");
    const budget = await cli(["recall", "x", "--aggregate", "--budget", "huge"]);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain("aggregateBudget");
  });

  test("content from stdin with -", async () => {
    const r = json(await cli(["remember", "-"], "multi\nline memory\n"));
    expect(r.content).toBe("multi\nline memory");
  });

  test("--pretty renders text, not JSON", async () => {
    const r = await cli(["remember", "pretty output check", "--pretty"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith("remembered\n");
    expect(() => JSON.parse(r.stdout)).toThrow();
  });

  test("agents are isolated: --agent sees only its own memories", async () => {
    const mine = json(await cli(["remember", "agent one secret", "--agent", "one"]));
    const other = await cli(["get", mine.id, "--agent", "two"]);
    expect(other.code).toBe(1);
    expect(json(await cli(["list", "--agent", "two"])).memories).toEqual([]);
    expect(json(await cli(["get", mine.id, "--agent", "one"])).id).toBe(mine.id);
  });

  test("exit codes: 1 not found or conflict, 2 validation", async () => {
    const missing = await cli(["get", "00000000-0000-4000-8000-000000000000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("not found");

    const m = json(await cli(["remember", "versioned memory"]));
    const conflict = await cli(["modify", m.id, "--reason", "r", "--content", "x", "--if-version", "7"]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain("version 1");

    for (const args of [
      ["remember", ""],
      ["remember", "x", "--importance", "2"],
      ["remember", "x", "--importance", "high"],
      ["remember", "x", "--created-at", "2999-01-01T00:00:00Z"],
      ["modify", m.id, "--reason", "nothing"],
      ["list", "--limit", "1001"],
      ["forget", m.id],
      ["remember", "x", "--no-such-flag"],
      ["no-such-command"],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr.length).toBeGreaterThan(0);
    }
  });

  test("--help at every level names the real options", async () => {
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const c of ["daemon", "remember", "list", "modify", "forget", "recover", "history", "migrate"]) expect(top.stdout).toContain(c);
    const rem = await cli(["remember", "--help"]);
    for (const o of ["--type", "--importance", "--tags", "--project", "--created-at"]) expect(rem.stdout).toContain(o);
    const daemon = await cli(["daemon", "--help"]);
    for (const c of ["start", "stop", "status", "logs"]) expect(daemon.stdout).toContain(c);
    const logs = await cli(["daemon", "logs", "--help"]);
    expect(logs.stdout).toContain("--follow");
  });

  test("--pinned says what pinning does: the memory comes at every session start", async () => {
    for (const command of ["remember", "modify"]) {
      const help = (await cli([command, "--help"])).stdout.replace(/\s+/g, " ");
      expect(help).toContain("pinned memories are given to the agent at every session start, in every project, and are not forgotten without --force");
    }
  });

  test("words beyond a command's own are refused by name (exit 2), and an unquoted text is never cut to its first word", async () => {
    const unquoted = await cli(["remember", "Always", "run", "tests", "before", "committing"]);
    expect(unquoted.code).toBe(2);
    expect(unquoted.stderr).toContain('unexpected words "run" "tests" "before" "committing": signet remember takes one <content>');
    expect(unquoted.stderr).toContain('quote them: signet remember "Always run tests before committing"');
    expect(json(await cli(["list", "--limit", "1000"])).memories.map((m: { content: string }) => m.content)).not.toContain("Always");
    for (const [args, said] of [
      [["recall", "tests", "foo", "bar"], 'unexpected words "foo" "bar": signet recall takes one <query>'],
      [["list", "extra", "words"], 'unexpected words "extra" "words": signet list takes no words'],
      [["daemon", "start", "junk"], 'unexpected word "junk": signet daemon start takes no words'],
      // A repeated single-value flag: which value was meant is the user's to say.
      [["remember", "x", "--tags", "a", "--tags", "b"], "--tags given more than once; it takes one value: give the values together, comma-separated (--tags a,b)"],
    ] as [string[], string][]) {
      const r = await cli(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: expect.stringContaining(said) });
    }
  });

  test("a flag's value may come before the subcommand's name", async () => {
    const url = `http://127.0.0.1:${s.port}`;
    const status = await cli(["embed", "--url", url, "status"]);
    expect(status.code).toBe(0);
    expect(json(status)).toMatchObject({ provider: "none" });
    const sources = await cli(["source", "--agent", "default", "list"]);
    expect(sources.code).toBe(0);
    expect(json(sources)).toEqual({ sources: [] });
    const token = await cli(["token", "--role", "readonly", "create"]);
    expect(token.code).toBe(0);
    expect(json(token)).toMatchObject({ role: "readonly" });
    expect((await cli(["token", "revoke", json(token).id])).code).toBe(0);
  });

  test("a bad SIGNET_DAEMON_URL is a usage error naming the problem", async () => {
    const r = await run(["list"], { env: { ...s.env, SIGNET_DAEMON_URL: "http://127.0.0.1:3850/api" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("path");
  });
});
