// Secret exec jobs across the daemon's life (docs/api.md#secret-exec), without a sandbox (as where
// none works; the sandboxed path: test/e2e/secret-exec-sandbox.test.ts): a full queue is 503
// queue_full and runs nothing; a stop ends every running job's process group and what left it, and
// marks queued and running jobs interrupted, which the next start reports; jobs persist across restarts.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../../src/control/daemon-process";
import { EXEC_LIMITS } from "../../src/core/secrets/exec";
import { tempDir } from "../helpers/daemon";
import { finished, startLoggedDaemon } from "../helpers/secrets";
import { eventually } from "../helpers/wait";

const dir = tempDir("signet-secret-jobs-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a full queue is 503 queue_full; a stop ends running jobs' groups and interrupts the rest; a restart reports them", async () => {
  const unsandboxed = 'secrets:\n  sandbox: "off"\n';
  const first = await startLoggedDaemon(dir, unsandboxed);
  const pids = join(dir, "pids");
  const { maxConcurrent, maxQueued } = EXEC_LIMITS;
  const ids: string[] = [];
  for (let i = 0; i < maxConcurrent + maxQueued; i++) {
    // Each job leaves a child in its group and one outside it (setsid).
    const r = await first.api("POST", "/api/secrets/exec", {
      command: `sleep 300 & echo $! >> ${pids}; setsid sleep 300 & echo $! >> ${pids}; wait`,
      secrets: {},
    });
    expect(r.status).toBe(202);
    ids.push(r.body.id);
  }
  const mark = join(dir, "ran-past-a-full-queue");
  const full = await first.api("POST", "/api/secrets/exec", { command: `touch ${mark}`, secrets: {} });
  expect(full.status).toBe(503);
  expect(full.body.code).toBe("queue_full");
  expect(full.body.error).toContain(`${maxQueued} are waiting`);

  expect(await eventually(() => existsSync(pids) && readFileSync(pids, "utf8").trim().split("\n").length === 2 * maxConcurrent)).toBe(true);
  const statuses = await Promise.all(ids.map(async (id) => (await first.api("GET", `/api/secrets/exec/${id}`)).body.status));
  expect(statuses.filter((s) => s === "running")).toHaveLength(maxConcurrent);
  expect(statuses.filter((s) => s === "queued")).toHaveLength(maxQueued);

  await first.daemon.stop();
  const started = readFileSync(pids, "utf8").trim().split("\n").map(Number);
  expect(await eventually(() => started.every((pid) => !alive(pid)), 5000)).toBe(true);
  expect(existsSync(mark)).toBe(false);

  const second = await startLoggedDaemon(dir, unsandboxed);
  try {
    const jobs = await Promise.all(ids.map(async (id) => (await second.api("GET", `/api/secrets/exec/${id}`)).body));
    expect(jobs.every((j) => j.status === "interrupted")).toBe(true);
    expect(jobs.slice(0, maxConcurrent).every((j) => j.error.includes("stopped while this job ran"))).toBe(true);
    expect(jobs.slice(maxConcurrent).every((j) => j.error.includes("stopped before this job ran"))).toBe(true);
    // The queue is empty again, and jobs run.
    const r = await second.api("POST", "/api/secrets/exec", { command: "echo again", secrets: {} });
    expect((await finished(second.api, r.body.id)).stdout).toBe("again\n");
  } finally {
    await second.daemon.stop();
  }
});

test("whether a sandbox works is found at the first job, not when the daemon starts, and once", async () => {
  const lazy = tempDir("signet-secret-probe-");
  const { daemon, lines, api } = await startLoggedDaemon(lazy, 'secrets:\n  sandbox: "off"\n');
  try {
    const said = () => lines.filter((l) => l.includes("secret exec: jobs run"));
    expect((await api("GET", "/health")).status).toBe(200);
    expect(said()).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const r = await api("POST", "/api/secrets/exec", { command: "true", secrets: {} });
      expect(r.status).toBe(202);
      expect((await finished(api, r.body.id)).status).toBe("completed");
    }
    expect(said()).toEqual(["warn secret exec: jobs run without a sandbox (secrets.sandbox is off); API tokens in team and hybrid modes may not run them"]);
  } finally {
    await daemon.stop();
    rmSync(lazy, { recursive: true, force: true });
  }
});
