// A folder of a project that cannot be listed is said, never dropped in silence (docs/code.md#indexing):
// `signet index` names it in `failed` and `signet code doctor` in its files check. The compiled binary
// runs as an account that may not list the folder: this one when it is not root, nobody (setpriv)
// when it is, since root may list any folder.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, sandbox, canRunUnprivileged, unprivilegedCli, type RunResult, type Sandbox } from "../helpers/binary";

let s: Sandbox;
let project: string;
let cli: (args: string[]) => Promise<RunResult>;

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  const root = dirname(s.dataDir);
  project = join(root, "project");
  mkdirSync(join(project, "locked"), { recursive: true });
  writeFileSync(join(project, "top.ts"), "export function top(): number {\n  return 1;\n}\n");
  writeFileSync(join(project, "locked", "a.ts"), "export function hidden(): number {\n  return 2;\n}\n");
  cli = unprivilegedCli(root, { ...s.env, SIGNET_AUTOSTART: "0" }, project);
  chmodSync(join(project, "locked"), 0o000);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
  chmodSync(join(project, "locked"), 0o755);
});

describe.skipIf(!canRunUnprivileged)("a folder that cannot be listed", () => {
  const reason = "the folder cannot be read (EACCES): nothing in it is indexed";

  test("signet index names it in failed", async () => {
    const r = await cli(["index", project, "--json"]);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({ files: 1, parsed: ["top.ts"], failed: [{ path: "locked", reason }] });
  }, 30_000);

  test("signet code doctor names it among the files left out", async () => {
    expect((await cli(["daemon", "start"])).code).toBe(0);
    const r = await cli(["code", "doctor", "--json"]);
    expect(r.code).toBe(1);
    const doctor = json(r);
    expect(doctor.checks.find((c: { name: string }) => c.name === "files")).toEqual({ name: "files", ok: false, detail: `locked: ${reason}` });
  }, 30_000);
});
