// What a code index run cannot take is said (docs/code.md#indexing): a .gitignore that cannot be read
// as a source reads one (a link out of the project, over 256 KiB, a named pipe) leaves its folder out,
// and the run names it in `failed`; `signet code doctor` (over HTTP) names it too, recorded by the run
// and, before any run, from the listing itself. The data directory stays left out without a problem.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codeProjectsPath } from "../../src/config/paths";
import { indexProject } from "../../src/core/code/indexer";
import { recordIndexedProject } from "../../src/core/code/projects";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon;

beforeAll(async () => {
  d = await startTestDaemon();
});

afterAll(async () => {
  await d.stop();
});

/** A project with code at its root and in `src/`, indexed and recorded for the daemon. */
async function project(): Promise<{ root: string; index: () => ReturnType<typeof indexProject> }> {
  const root = join(realpathSync(tempDir("signet-code-left-out-")), "project");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "top.ts"), "export function top(): number {\n  return 1;\n}\n");
  writeFileSync(join(root, "src", "a.ts"), "export function alpha(): number {\n  return 2;\n}\n");
  const index = async () => {
    const run = await indexProject(root, undefined, d.dataDir);
    recordIndexedProject(codeProjectsPath(d.dataDir), { project: root, indexedAt: run.startedAt });
    return run;
  };
  return { root, index };
}

async function filesCheck(root: string): Promise<{ ok: boolean; detail: string }> {
  const res = await d.fetch(`/api/code/doctor?project=${encodeURIComponent(root)}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { checks: { name: string; ok: boolean; detail: string }[] };
  const { ok, detail } = body.checks.find((c) => c.name === "files")!;
  return { ok, detail };
}

function mkfifo(path: string): void {
  const r = Bun.spawnSync(["mkfifo", path]);
  if (r.exitCode !== 0) throw new Error(`mkfifo ${path}: ${r.stderr.toString()}`);
}

describe("a .gitignore that cannot be read leaves its folder out, and says so", () => {
  test("a link to a file outside the project, at the root: nothing indexed, the run and doctor say why", async () => {
    const { root, index } = await project();
    const outside = join(tempDir("signet-code-rules-"), "shared.gitignore");
    writeFileSync(outside, "dist/\n");
    symlinkSync(outside, join(root, ".gitignore"));
    const run = await index();
    const reason = `a symbolic link to ${realpathSync(outside)}, outside the source (not followed): nothing in its folder is indexed`;
    expect(run).toMatchObject({ files: 0, parsed: [], failed: [{ path: ".gitignore", reason }] });
    expect(await filesCheck(root)).toEqual({ ok: false, detail: `.gitignore: ${reason}` });
  });

  test("over 256 KiB, in a folder: that folder only is left out", async () => {
    const { root, index } = await project();
    writeFileSync(join(root, "src", ".gitignore"), `# ${"x".repeat(256 * 1024)}\n`);
    const run = await index();
    const reason = "larger than 256 KiB: nothing in its folder is indexed";
    expect(run).toMatchObject({ files: 1, parsed: ["top.ts"], failed: [{ path: "src/.gitignore", reason }] });
    expect(await filesCheck(root)).toEqual({ ok: false, detail: `src/.gitignore: ${reason}` });
  });

  test("a named pipe, after a run that took the folder: its files leave the index; doctor sees it before the next run", async () => {
    const { root, index } = await project();
    expect((await index()).parsed).toEqual(["src/a.ts", "top.ts"]);
    mkfifo(join(root, "src", ".gitignore"));
    const reason = "a named pipe, not a regular file: nothing in its folder is indexed";
    // Not run again yet: the listing says it.
    expect(await filesCheck(root)).toEqual({ ok: false, detail: `src/.gitignore: ${reason}` });
    const run = await index();
    expect(run).toMatchObject({ files: 1, removed: ["src/a.ts"], failed: [{ path: "src/.gitignore", reason }] });
    expect(await filesCheck(root)).toEqual({ ok: false, detail: `src/.gitignore: ${reason}` });
    // Fixed: the next run takes the folder again, and the problem is gone.
    rmSync(join(root, "src", ".gitignore"));
    expect(await index()).toMatchObject({ files: 2, parsed: ["src/a.ts"], failed: [] });
    expect(await filesCheck(root)).toEqual({ ok: true, detail: "every code file was indexed" });
  });
});

test("a file that failed and is gone since is no longer named by doctor", async () => {
  const { root, index } = await project();
  writeFileSync(join(root, "src", "binary.ts"), Buffer.from([0x65, 0x00, 0x66]));
  expect((await index()).failed).toEqual([{ path: "src/binary.ts", reason: "binary content (NUL bytes): not indexed" }]);
  expect(await filesCheck(root)).toEqual({ ok: false, detail: "src/binary.ts: binary content (NUL bytes): not indexed" });
  rmSync(join(root, "src", "binary.ts"));
  expect((await index()).failed).toEqual([]);
  expect(await filesCheck(root)).toEqual({ ok: true, detail: "every code file was indexed" });
});
