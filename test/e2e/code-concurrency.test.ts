// `signet index` runs at the same time, as the compiled binary runs them (docs/code.md#indexing): runs
// of different projects each keep their entry in the list of indexed projects; runs of one project
// are one at a time, a second one refused with the reason while the first holds the project's lock
// (.graphiq/index.lock), never failing on the index's own constraints.
import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { tempDir } from "../helpers/temp-cleanup";

let s: Sandbox;
let root: string;
const cli = (args: string[]) => run(args, { env: { ...s.env, SIGNET_AUTOSTART: "0" }, cwd: root, timeoutMs: 60_000 });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  root = realpathSync(tempDir("signet-code-concurrent-"));
});

/** A project of `files` TypeScript files. */
function project(name: string, files: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(dir, `f${i}.ts`), `export function ${name}_${i}(x: number): number {\n  return x + ${i};\n}\n`);
  return dir;
}

describe("signet index at the same time", () => {
  test("twelve projects at once: every one is recorded", async () => {
    const projects = Array.from({ length: 12 }, (_, i) => project(`p${i}`, 2));
    const results = await Promise.all(projects.map((p) => cli(["index", p, "--json"])));
    expect(results.map((r) => [r.code, r.stderr])).toEqual(projects.map(() => [0, ""]));
    const listed = JSON.parse(readFileSync(join(s.dataDir, "code", "projects.json"), "utf8")).projects.map((p: { project: string }) => p.project);
    expect(listed.sort()).toEqual([...projects].sort());
  }, 120_000);

  test("while a run of a project holds its lock, another is refused with the reason and changes nothing", async () => {
    const p = project("held", 3);
    expect((await cli(["index", p, "--json"])).code).toBe(0);
    writeFileSync(join(p, "f3.ts"), "export function added(): number {\n  return 3;\n}\n");
    // The lock as a run holds it: an exclusive transaction on the lock file.
    const lock = new Database(join(p, ".graphiq", "index.lock"));
    lock.run("BEGIN EXCLUSIVE");
    try {
      const refused = await cli(["index", p, "--json"]);
      expect([refused.code, refused.stdout]).toEqual([1, ""]);
      expect(refused.stderr).toContain(`another \`signet index\` of ${p} is running (it holds ${join(p, ".graphiq", "index.lock")}): run this one again when it has finished`);
    } finally {
      lock.run("ROLLBACK");
      lock.close();
    }
    const after = json(await cli(["index", p, "--json"]));
    expect(after).toMatchObject({ parsed: ["f3.ts"], unchanged: 3, failed: [] });
  }, 60_000);

  test("four runs of one project at once: each ends indexed or refused with the reason; the index is whole", async () => {
    const p = project("same", 150);
    const results = await Promise.all(Array.from({ length: 4 }, () => cli(["index", p, "--json"])));
    for (const r of results) {
      if (r.code === 0) expect(json(r)).toMatchObject({ files: 150, failed: [] });
      else expect([r.code, r.stderr]).toEqual([1, expect.stringContaining(`another \`signet index\` of ${p} is running`)]);
    }
    expect(results.some((r) => r.code === 0)).toBe(true);
    const again = json(await cli(["index", p, "--json"]));
    expect(again).toMatchObject({ files: 150, parsed: [], unchanged: 150, failed: [], symbols: 150 });
  }, 120_000);
});
