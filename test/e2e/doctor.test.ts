// `signet doctor` against a sandbox: all in order (exit 0), then one planted problem at a time, each
// reported with its fix (exit 1): the daemon down, a loose file mode, a harness entry naming a
// missing binary. Doctor never starts the daemon nor changes a mode or a config (the path it runs
// for real: doctor-path.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { hasSystemTool } from "../helpers/system-tool";

let s: Sandbox;
/** The sandbox with this build's signet-mcp first on PATH, as `signet self-install` would leave it. */
let env: Record<string, string>;
const cli = (args: string[]) => run(args, { env });

interface Check {
  area: string;
  status: "ok" | "problem" | "note";
  detail: string;
  fix?: string;
}

async function doctor(...flags: string[]): Promise<{ code: number; report: { ok: boolean; problems: number; checks: Check[] } }> {
  const r = await cli(["doctor", "--json", ...flags]);
  return { code: r.code, report: json(r) };
}

const byArea = (checks: Check[], area: string) => checks.filter((c) => c.area === area);
const problems = (checks: Check[]) => checks.filter((c) => c.status === "problem");

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  env = { ...s.env, PATH: `${dirname(BIN)}:${s.env.PATH}` };
  await startDaemonIn(s, env);
  const setup = await cli(["setup", "--harness", "claude-code"]);
  if (setup.code !== 0) throw new Error(`setup failed: ${setup.stderr}`);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("signet doctor", () => {
  test("all in order: exit 0, every area reported", async () => {
    const { code, report } = await doctor();
    expect(problems(report.checks)).toEqual([]);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, problems: 0 });
    const status = (area: string) => byArea(report.checks, area).map((c) => c.status);
    for (const area of ["daemon", "identity", "store", "embedder", "file modes", "signet-mcp"]) expect(status(area)).toEqual(["ok"]);
    // Its registration, its hooks run for real, its MCP server run for real (test/e2e/doctor-path.test.ts).
    expect(status("claude-code")).toEqual(["ok", "ok", "ok"]);
    // Harnesses without an entry are a note with the command that registers them, not a problem.
    expect(byArea(report.checks, "codex")).toEqual([{ area: "codex", status: "note", detail: "signet-mcp is not registered", fix: "signet setup --harness codex" }]);
    expect(byArea(report.checks, "claude-code")[0]!.detail).toContain("(this signet)");
    expect(byArea(report.checks, "signet-mcp")[0]!.detail).toBe(`${join(dirname(BIN), "signet-mcp")} (this signet)`);
    expect(byArea(report.checks, "embedder")[0]!.detail).toContain("keyword-only");
    // Where bubblewrap works (.ci/run installs it); without it, a note (the next test).
    if (hasSystemTool("bubblewrap")) expect(byArea(report.checks, "secret exec")).toMatchObject([{ status: "ok", detail: expect.stringContaining("bubblewrap sandbox") }]);

    const text = await cli(["doctor", "--pretty"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ok +daemon +running at http:\/\/127\.0\.0\.1:\d+ \(pid \d+/m);
    expect(text.stdout).toContain("signet doctor: no problems found");
  });

  test("without a sandbox, secret exec says what jobs can reach and what team mode refuses", async () => {
    const other = await sandbox('auth:\n  mode: team\nsecrets:\n  sandbox: "off"\n');
    const r = await run(["doctor", "--json"], { env: { ...other.env, PATH: env.PATH! } });
    const [exec] = byArea(json(r).checks, "secret exec");
    expect(exec).toMatchObject({ status: "note", fix: expect.stringContaining("apt install bubblewrap") });
    expect(exec!.detail).toContain("can read the data directory");
    expect(exec!.detail).toContain("in team mode API tokens may not run them");
  });

  test("a loose file mode: the file named, chmod as the fix; doctor changes nothing", async () => {
    const db = join(s.dataDir, "memory", "memories.db");
    chmodSync(db, 0o644);
    try {
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(problems(report.checks)).toEqual([
        { area: "file modes", status: "problem", detail: `${db} is 0644, want 0600`, fix: `chmod go-rwx '${db}' (the daemon also tightens it when it starts)` },
      ]);
      expect(statSync(db).mode & 0o777).toBe(0o644);
      const text = await cli(["doctor", "--pretty"]);
      expect(text.code).toBe(1);
      expect(text.stdout).toContain(`problem  file modes   ${db} is 0644, want 0600\n         fix: chmod go-rwx '${db}'`);
      expect(text.stdout).toContain("signet doctor: 1 problem found");
    } finally {
      chmodSync(db, 0o600);
    }
  });

  test("a harness entry pointing to a missing binary", async () => {
    const file = join(s.home, ".claude.json");
    const before = readFileSync(file, "utf8");
    const entry = JSON.parse(before);
    entry.mcpServers.signet.command = "/nonexistent/bin/signet-mcp";
    writeFileSync(file, JSON.stringify(entry));
    const opencode = join(s.home, ".config", "opencode", "opencode.json");
    mkdirSync(dirname(opencode), { recursive: true });
    // Not executable: a file is there, but a harness could not start it.
    const plain = join(s.home, "signet-mcp");
    writeFileSync(plain, "#!/bin/sh\n");
    writeFileSync(opencode, JSON.stringify({ mcp: { signet: { type: "local", command: [plain] } } }));
    try {
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(problems(report.checks)).toEqual([
        { area: "claude-code", status: "problem", detail: `${file}: /nonexistent/bin/signet-mcp does not exist`, fix: "signet setup --harness claude-code" },
        { area: "opencode", status: "problem", detail: `${opencode}: ${plain} is not an executable file`, fix: `chmod +x '${plain}', or signet self-install` },
      ]);
      expect(readFileSync(file, "utf8")).toBe(JSON.stringify(entry));
    } finally {
      writeFileSync(file, before);
      writeFileSync(opencode, "{}");
    }
  });

  test("the daemon down: a problem with `signet daemon start`, and doctor does not start it", async () => {
    expect((await cli(["daemon", "stop"])).code).toBe(0);
    try {
      // Autostart on (the default) must not make doctor start a daemon.
      const { code, report } = await doctor();
      expect(code).toBe(1);
      expect(problems(report.checks)).toEqual([
        { area: "daemon", status: "problem", detail: `not running for ${s.dataDir}`, fix: "signet daemon start" },
      ]);
      expect(byArea(report.checks, "embedder")[0]!.status).toBe("note");
      expect((await cli(["daemon", "status"])).code).toBe(1);
    } finally {
      expect((await cli(["daemon", "start"])).code).toBe(0);
    }
  });

  test("a daemon of another data directory at the URL fails the identity check", async () => {
    const other = await sandbox("embedding:\n  provider: none\n");
    const start = await run(["daemon", "start"], { env: other.env });
    expect(start.code).toBe(0);
    try {
      const { code, report } = await doctor("--url", `http://127.0.0.1:${other.port}`);
      expect(code).toBe(1);
      const identity = byArea(report.checks, "identity")[0]!;
      expect(identity.status).toBe("problem");
      expect(identity.detail).toContain(`port ${other.port} is not your Signet daemon for ${s.dataDir}`);
    } finally {
      await run(["daemon", "stop"], { env: other.env });
    }
  }, 30_000);
});
