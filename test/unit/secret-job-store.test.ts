// Secret exec jobs on both stores: a job queued, run and finished through SecretExecService (a real
// /bin/sh, no sandbox, a secret from a real local store) against the daemon's SQLite file and a real
// PostgreSQL (a throwaway cluster). On PostgreSQL also what only a shared store has: another daemon
// answers a job's status, and a daemon starting again interrupts only the jobs it left.
import { afterAll, describe, expect, test } from "bun:test";
import type { ExecJob } from "../../src/contracts/secrets";
import { SecretExecService } from "../../src/core/secrets/exec";
import type { SecretJobStore } from "../../src/core/secrets/job-store";
import { PostgresSecretJobStore } from "../../src/core/secrets/postgres-job-store";
import { ReferenceResolver } from "../../src/core/secrets/references";
import { SqliteSecretJobStore } from "../../src/core/secrets/sqlite-job-store";
import { SecretStore } from "../../src/core/secrets/store";
import { recordingLogger } from "../helpers/log";
import { postgresDatabases } from "../helpers/postgres-databases";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";
import { migratedDatabase } from "../helpers/sqlite";

const services: SecretExecService[] = [];
afterAll(async () => {
  for (const s of services.splice(0)) await s.stop();
});
const postgres = postgresDatabases();

function service(jobs: SecretJobStore): { exec: SecretExecService; logged: string[] } {
  const dir = tempDir();
  const secrets = new SecretStore(dir);
  secrets.set("DEPLOY_KEY", "hunter2-value");
  const { log, lines } = recordingLogger();
  const exec = new SecretExecService({
    jobs,
    resolver: new ReferenceResolver({ store: secrets, provider: "local", baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LANG: "C.UTF-8" } }),
    log,
    sandbox: () => null,
    hide: [],
    writable: [],
    allowUnsandboxed: true,
  });
  services.push(exec);
  return { exec, logged: lines };
}

async function finished(exec: SecretExecService, id: string, agentId = "ada"): Promise<ExecJob> {
  let job: ExecJob | undefined;
  expect(await eventually(async () => (job = await exec.get(id, agentId)).status !== "queued" && job.status !== "running", 10_000)).toBe(true);
  return job!;
}

const STORES: { name: string; available: boolean; open(): Promise<SecretJobStore> }[] = [
  {
    name: "SQLite",
    available: true,
    async open() {
      const db = migratedDatabase();
      return new SqliteSecretJobStore(db);
    },
  },
  {
    name: "PostgreSQL",
    available: postgres.available,
    async open() {
      return new PostgresSecretJobStore((await postgres.database({ max: 2 }))(), "daemon-a");
    },
  },
];

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`secret exec jobs on ${kind.name}`, () => {
    test("a job is stored when accepted, runs with its secret, and ends completed with its output redacted", async () => {
      const { exec } = service(await kind.open());
      const accepted = await exec.submit({ command: 'echo "key is $DEPLOY_KEY"; exit 3', secrets: { DEPLOY_KEY: "local://DEPLOY_KEY" } }, { agentId: "ada", needsSandbox: false });
      expect(accepted).toMatchObject({ status: "queued" });
      const job = await finished(exec, accepted.id);
      expect(job).toMatchObject({ status: "completed", exitCode: 3, timedOut: false, stdout: "key is [REDACTED]\n" });
      expect(job.startedAt).not.toBeNull();
      // Another agent's job is not found.
      await expect(exec.get(accepted.id, "bob")).rejects.toThrow("not found");
    });

    test("a reference that cannot be resolved fails the job before anything runs", async () => {
      const { exec } = service(await kind.open());
      const accepted = await exec.submit({ command: "echo ran", secrets: { X: "local://MISSING" } }, { agentId: "ada", needsSandbox: false });
      const job = await finished(exec, accepted.id);
      expect(job.status).toBe("failed");
      expect(job.error).toContain("nothing was run");
      expect(job.error).toContain("MISSING");
    });
  });
}

describe.skipIf(!postgres.available)("secret exec jobs shared by two daemons on one PostgreSQL", () => {
  test("another daemon answers a job's status; a daemon starting again interrupts only what it left", async () => {
    const connect = await postgres.database({ max: 4 });
    const a = service(new PostgresSecretJobStore(connect(), "daemon-a"));
    const b = service(new PostgresSecretJobStore(connect(), "daemon-b"));
    const running = await b.exec.submit({ command: "sleep 30", secrets: {} }, { agentId: "ada", needsSandbox: false });
    expect(await eventually(async () => (await a.exec.get(running.id, "ada")).status === "running", 10_000)).toBe(true);
    // Daemon a starting again (a new service for the same daemon id): b's running job is left alone.
    const jobs = new PostgresSecretJobStore(connect(), "daemon-a");
    const stale = service(jobs);
    await jobs.insert({ id: "left-by-a", agentId: "ada", command: "true", secrets: "{}", timeoutMs: 1000, at: "2026-01-01T00:00:00.000Z" });
    const again = service(new PostgresSecretJobStore(connect(), "daemon-a"));
    await again.exec.start();
    expect((await a.exec.get("left-by-a", "ada")).status).toBe("interrupted");
    expect((await a.exec.get(running.id, "ada")).status).toBe("running");
    expect(again.logged).toEqual(["warn 1 secret exec job(s) were interrupted when the daemon last stopped"]);
    // Daemon b stops: its own job ends interrupted, and every daemon sees it.
    await b.exec.stop();
    expect((await stale.exec.get(running.id, "ada")).status).toBe("interrupted");
  });
});
