// A secret exec job that fails unexpectedly once its values are resolved (docs/api.md#secret-exec):
// the error kept with the job, which agents read, and the daemon's log line carry the failure's text
// with every injected value redacted, as written and as error messages quote values (escaped).
import { afterAll, expect, test } from "bun:test";
import { inspect } from "node:util";
import type { ExecJob } from "../../src/contracts/secrets";
import { SecretExecService } from "../../src/core/secrets/exec";
import { ReferenceResolver } from "../../src/core/secrets/references";
import { SqliteSecretJobStore } from "../../src/core/secrets/sqlite-job-store";
import { SecretStore } from "../../src/core/secrets/store";
import { recordingLogger } from "../helpers/log";
import { migratedDatabase } from "../helpers/sqlite";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";

const services: SecretExecService[] = [];
afterAll(async () => {
  for (const s of services.splice(0)) await s.stop();
});

// A tab and a quote: inspect escapes the one and changes the quoting for the other.
const VALUE = "tab\there-it's-the-secret";

test("an error raised while the values are at hand is kept and logged with them redacted", async () => {
  const dir = tempDir();
  const store = new SecretStore(dir);
  store.set("DEPLOY_KEY", VALUE);
  const { log, lines } = recordingLogger();
  const exec = new SecretExecService({
    jobs: new SqliteSecretJobStore(migratedDatabase()),
    resolver: new ReferenceResolver({ store, provider: "local", baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, LANG: "C.UTF-8" } }),
    log,
    // Asked for as the command is about to start, after the values are resolved: its failure stands
    // for any, quoting the value as spawning's argument errors do (plainly and escaped).
    sandbox: () => {
      throw new TypeError(`cannot start with K=${VALUE}; received ${inspect(VALUE)} and ${JSON.stringify(VALUE)}`);
    },
    hide: [],
    writable: [],
    allowUnsandboxed: true,
  });
  services.push(exec);
  const accepted = await exec.submit({ command: "echo ran", secrets: { K: "DEPLOY_KEY" } }, { agentId: "ada", needsSandbox: false });
  let job: ExecJob | undefined;
  expect(await eventually(async () => (job = await exec.get(accepted.id, "ada")).status === "failed", 10_000)).toBe(true);
  expect(job!.error).toBe("the job could not run: cannot start with K=[REDACTED]; received \"[REDACTED]\" and \"[REDACTED]\"");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(`error secret exec job ${accepted.id} failed unexpectedly: TypeError: cannot start with K=[REDACTED]; received "[REDACTED]" and "[REDACTED]"`);
  for (const text of [job!.error!, ...lines]) {
    expect(text).not.toContain("the-secret");
    expect(text).not.toContain("here-it");
  }
});
