// `signet doctor` checks the whole path of each harness `signet setup` set up: it runs the registered
// hook commands (and OpenCode's plugin) with dry-run sessions and the registered MCP server
// (initialize, tools/list, one read-only call), then removes what the dry run recorded. Real
// processes: the compiled binary, a real daemon, real harness configs under a temporary HOME, and
// `claude mcp list` for what Claude Code itself reports.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { BIN, freePort, json, run, sandbox, type Sandbox } from "../helpers/binary";

interface Check {
  area: string;
  status: "ok" | "problem" | "note";
  detail: string;
  fix?: string;
}
interface Report {
  ok: boolean;
  problems: number;
  checks: Check[];
}

const CLAUDE = resolve(import.meta.dir, "../../node_modules/.bin/claude");
const HARNESSES = ["claude-code", "codex", "opencode"] as const;

const problems = (r: Report) => r.checks.filter((c) => c.status === "problem");
const of = (r: Report, area: string, status?: Check["status"]) => r.checks.filter((c) => c.area === area && (status === undefined || c.status === status));

/** A sandbox whose daemon port is in agent.yaml too, and whose PATH starts with this build's signet. */
async function home(yaml: string): Promise<{ s: Sandbox; env: Record<string, string> }> {
  const s = await sandbox(`embedding:\n  provider: none\n${yaml}`);
  appendFileSync(join(s.dataDir, "agent.yaml"), `daemon:\n  port: ${s.port}\n`);
  return { s, env: { ...s.env, PATH: `${dirname(BIN)}:${s.env.PATH}` } };
}

async function doctor(env: Record<string, string>): Promise<{ code: number; report: Report }> {
  const r = await run(["doctor", "--json"], { env, timeoutMs: 60_000 });
  return { code: r.code, report: json<Report>(r) };
}

/** What the daemon holds of any session doctor ran: every table a hook writes to. */
function dryRunRows(dataDir: string): Record<string, number> {
  const db = new Database(join(dataDir, "memory", "memories.db"), { readonly: true });
  try {
    const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
    return {
      sessions: count("SELECT COUNT(*) AS n FROM sessions WHERE key LIKE 'signet-doctor-%'"),
      transcripts: count("SELECT COUNT(*) AS n FROM session_transcripts_fts"),
      memories: count("SELECT COUNT(*) AS n FROM session_memories WHERE session_key LIKE 'signet-doctor-%'"),
      deliveries: count("SELECT COUNT(*) AS n FROM agent_message_deliveries WHERE session_key LIKE 'signet-doctor-%'"),
      presence: count("SELECT COUNT(*) AS n FROM agent_presence WHERE session_key LIKE 'signet-doctor-%'"),
    };
  } finally {
    db.close();
  }
}

/** Processes of this sandbox (its data directory in their command line or environment) other than its daemon. */
function leftovers(dataDir: string, daemonPid: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p) && Number(p) !== daemonPid && Number(p) !== process.pid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmdline.includes(dataDir) || readFileSync(`/proc/${pid}/environ`, "utf8").includes(`SIGNET_PATH=${dataDir}\0`)) found.push(`${pid}: ${cmdline.replaceAll("\0", " ")}`);
    } catch {
      // Gone meanwhile, or another account's.
    }
  }
  return found;
}

async function daemonPid(env: Record<string, string>): Promise<number> {
  return json((await run(["daemon", "status", "--json"], { env }))).pid;
}

describe("every harness set up, a healthy path", () => {
  let s: Sandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ s, env } = await home(""));
    expect((await run(["daemon", "start"], { env })).code).toBe(0);
    for (const harness of HARNESSES) expect((await run(["setup", "--harness", harness], { env })).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await run(["daemon", "stop"], { env });
  });

  test("each harness's hooks and MCP server are run for real and reach the daemon; the dry-run sessions are gone afterwards", async () => {
    // A message waiting for the agent: the dry-run prompts are given it, and that must be undone.
    const NEWS = "The deploy window moved to Thursday";
    expect((await run(["message", "send", NEWS, "--to", "default"], { env: { ...env, SIGNET_AGENT_ID: "ops" } })).code).toBe(0);
    const { code, report } = await doctor(env);
    expect(problems(report)).toEqual([]);
    expect(code).toBe(0);
    for (const harness of HARNESSES) {
      const details = of(report, harness, "ok").map((c) => c.detail);
      expect({ harness, hooks: details.some((d) => /reached the daemon; (its dry-run session was|their dry-run sessions were) removed$/.test(d)) }).toEqual({ harness, hooks: true });
      expect({ harness, mcp: details.some((d) => /its MCP server answered initialize, tools\/list \(\d+ tools\) and a memory_list call/.test(d)) }).toEqual({ harness, mcp: true });
    }
    expect(of(report, "claude-code", "ok").map((c) => c.detail)).toContain(
      `${join(s.home, ".claude", "settings.json")}: the SessionStart, UserPromptSubmit, PreCompact, PostCompact, SessionEnd hooks reached the daemon; their dry-run sessions were removed`,
    );
    expect(of(report, "opencode", "ok").map((c) => c.detail)).toContain(
      `${join(s.home, ".config", "opencode", "plugins", "signet.js")}: Signet's plugin reached the daemon; its dry-run session was removed`,
    );
    expect(dryRunRows(s.dataDir)).toEqual({ sessions: 0, transcripts: 0, memories: 0, deliveries: 0, presence: 0 });
    expect(leftovers(s.dataDir, await daemonPid(env))).toEqual([]);
    // A session that starts now is still given the message, as if doctor had never run.
    const input = JSON.stringify({ session_id: "after-doctor", cwd: s.home, hook_event_name: "UserPromptSubmit", prompt: "anything new?" });
    const prompt = await run(["hook", "user-prompt-submit", "--harness", "claude-code"], { env, stdin: input });
    expect(prompt.stdout).toContain(NEWS);
  }, 60_000);

  test("the daemon moved to another port: the hooks and MCP entries that still name the old one are problems, each with its fix", async () => {
    const moved = await freePort();
    const there = { ...env, SIGNET_PORT: String(moved) };
    expect((await run(["daemon", "stop"], { env })).code).toBe(0);
    expect((await run(["daemon", "start"], { env: there })).code).toBe(0);
    try {
      const { code, report } = await doctor(there);
      expect(code).toBe(1);
      expect(of(report, "daemon")[0]!.detail).toContain(`:${moved}`);
      for (const harness of HARNESSES) {
        const found = of(report, harness, "problem");
        const hooks = found.find((c) => c.detail.includes("reached no daemon"));
        expect({ harness, hooks: hooks?.fix }).toEqual({ harness, hooks: `signet setup --harness ${harness} (its entries then reach the daemon at http://127.0.0.1:${moved})` });
        const mcp = found.find((c) => c.detail.includes("a memory_list call fails, so every tool call of the agent fails"));
        expect({ harness, mcp: mcp?.fix }).toEqual({ harness, mcp: `signet setup --harness ${harness} (its entries then reach the daemon at http://127.0.0.1:${moved})` });
        expect(mcp!.detail).toContain(`127.0.0.1:${s.port}`);
      }
      expect(report.problems).toBe(6);
      expect(dryRunRows(s.dataDir).sessions).toBe(0);
      expect(leftovers(s.dataDir, await daemonPid(there))).toEqual([]);
    } finally {
      await run(["daemon", "stop"], { env: there });
      expect((await run(["daemon", "start"], { env })).code).toBe(0);
    }
  }, 90_000);
});

describe("team mode", () => {
  test("entries without a token: Claude Code says Connected, doctor says every tool call and hook is refused, with the fix", async () => {
    const { s, env } = await home("auth:\n  mode: team\n");
    expect((await run(["daemon", "start"], { env })).code).toBe(0);
    try {
      expect((await run(["setup", "--harness", "claude-code"], { env })).code).toBe(0);
      // Whatever token setup gave the entries is taken out again: the entry a user wrote by hand, or an old setup's.
      const state = join(s.home, ".claude.json");
      const claude = JSON.parse(readFileSync(state, "utf8"));
      for (const name of ["SIGNET_TOKEN", "SIGNET_TOKEN_FILE"]) delete claude.mcpServers.signet.env[name];
      writeFileSync(state, JSON.stringify(claude, null, 2));
      const settings = join(s.home, ".claude", "settings.json");
      writeFileSync(settings, readFileSync(settings, "utf8").replace(/ --token-file '[^']*'/g, ""));

      const listed = Bun.spawnSync([CLAUDE, "mcp", "list"], {
        env: { PATH: process.env.PATH!, HOME: s.home, DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
        cwd: s.home,
        timeout: 60_000,
      });
      expect(listed.stdout.toString()).toMatch(/^signet: .*signet-mcp\s+- ✔ Connected$/m);

      const { code, report } = await doctor(env);
      expect(code).toBe(1);
      const found = of(report, "claude-code", "problem");
      const tokenFix =
        "signet setup --harness claude-code (in team mode it gives the entries a token file); a token of your own: SIGNET_TOKEN_FILE in the MCP entry's environment and --token-file in the hook commands";
      expect(found.map((c) => c.fix)).toEqual([tokenFix, tokenFix, tokenFix]);
      expect(found[0]!.detail).toMatch(/^.*settings\.json: the SessionStart, UserPromptSubmit, PreCompact, PostCompact, SessionEnd hooks ran, but the daemon recorded nothing: signet hook: the daemon refused session-start: .*needs a token/);
      expect(found[1]!.detail).toContain(`${state}: its MCP server starts and lists its tools, but a memory_list call fails, so every tool call of the agent fails`);
      expect(found[1]!.detail).toContain("needs a token");
      expect(found[2]!.detail).toBe(
        `auth.mode is team, so every call needs a token, and the MCP entry in ${state} and the hook commands in ${settings} carry none: every tool call and hook is refused (401) while Claude Code shows the server connected`,
      );
      expect(report.problems).toBe(3);
      expect(leftovers(s.dataDir, await daemonPid(env))).toEqual([]);
    } finally {
      await run(["daemon", "stop"], { env });
    }
  }, 120_000);
});
