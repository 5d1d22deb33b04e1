// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in devDependencies)
// against /mcp of a daemon started in process. The suite needs Node >= 22, so it runs under Bun:
// `bun x --bun conformance server --url URL --scenario NAME -o OUTDIR`. Offline: the bin is local.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

const ROOT = resolve(import.meta.dir, "../..");
const BIN = join(ROOT, "node_modules/.bin/conformance");
const SCENARIOS = ["server-initialize", "ping", "tools-list", "tools-call-error", "logging-set-level", "dns-rebinding-protection"];

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

let td: TestDaemon;
let outRoot: string;

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm install\` (it is a devDependency)`);
  td = await startTestDaemon();
  outRoot = mkdtempSync(join(tmpdir(), "signet-conformance-"));
});

afterAll(async () => {
  await td?.stop();
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

async function runScenario(scenario: string): Promise<{ code: number; output: string; checks: Check[] }> {
  const outDir = join(outRoot, scenario);
  const proc = Bun.spawn(
    [process.execPath, "x", "--bun", "conformance", "server", "--url", `${td.url}/mcp`, "--scenario", scenario, "-o", outDir],
    {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    },
  );
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const output = `${stdout}\n${stderr}`;
  // Results land in OUTDIR/server-<scenario>-<time>/checks.json.
  const runs = existsSync(outDir) ? readdirSync(outDir).filter((d) => d.startsWith(`server-${scenario}-`)) : [];
  if (runs.length !== 1) throw new Error(`expected one result directory for ${scenario} in ${outDir}, found ${runs.length}:\n${output}`);
  const checks = JSON.parse(readFileSync(join(outDir, runs[0]!, "checks.json"), "utf8")) as Check[];
  return { code, output, checks };
}

describe("MCP conformance suite 0.1.16 against /mcp", () => {
  for (const scenario of SCENARIOS) {
    test(
      scenario,
      async () => {
        const { code, output, checks } = await runScenario(scenario);
        const failed = checks.filter((c) => c.status === "FAILURE");
        expect({ scenario, failed, code }).toEqual({ scenario, failed: [], code: 0 });
        expect(checks.filter((c) => c.status === "SUCCESS").length).toBeGreaterThan(0);
        expect(output).toMatch(/0 failed/);
      },
      90_000,
    );
  }

  test("the daemon is unharmed afterwards", async () => {
    const res = await td.fetch("/health");
    expect(res.status).toBe(200);
  });
});
