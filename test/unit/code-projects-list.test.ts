// The list of indexed projects ($SIGNET_PATH/code/projects.json, docs/code.md#which-project-answers)
// under processes that record at the same time: each entry recorded is kept, as a `signet index` of
// each project would leave it. Only a list that is not there is "no project"; one that cannot be read
// is an error naming it, and recording never writes over it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SignetError } from "../../src/contracts/errors";
import { readIndexedProjects, recordIndexedProject } from "../../src/core/code/projects";
import { tempDir } from "../helpers/temp-cleanup";

const PROJECTS = resolve(import.meta.dir, "../../src/core/code/projects.ts");
const WRITERS = 8;
const EACH = 25;

describe("recording indexed projects", () => {
  test(`${WRITERS} processes recording ${EACH} projects each at once: all ${WRITERS * EACH} are listed`, async () => {
    const list = join(tempDir("signet-code-list-"), "code", "projects.json");
    const script = (writer: number) => `
      import { recordIndexedProject } from ${JSON.stringify(PROJECTS)};
      for (let i = 0; i < ${EACH}; i++) recordIndexedProject(${JSON.stringify(list)}, { project: "/work/p${writer}-" + i, indexedAt: new Date().toISOString() });`;
    const procs = Array.from({ length: WRITERS }, (_, w) => Bun.spawn([process.execPath, "-e", script(w)], { stdout: "pipe", stderr: "pipe" }));
    const outcomes = await Promise.all(procs.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })));
    expect(outcomes).toEqual(Array.from({ length: WRITERS }, () => ({ code: 0, stderr: "" })));
    const listed = readIndexedProjects(list).map((p) => p.project);
    expect(listed).toHaveLength(WRITERS * EACH);
    expect(new Set(listed).size).toBe(WRITERS * EACH);
  }, 60_000);

  test("a project recorded again is refreshed in place, the others kept", () => {
    const list = join(tempDir("signet-code-list-"), "projects.json");
    recordIndexedProject(list, { project: "/a", indexedAt: "2024-01-01T00:00:00.000Z" });
    recordIndexedProject(list, { project: "/b", indexedAt: "2024-01-02T00:00:00.000Z" });
    recordIndexedProject(list, { project: "/a", indexedAt: "2024-01-03T00:00:00.000Z" });
    expect(readIndexedProjects(list)).toEqual([
      { project: "/b", indexedAt: "2024-01-02T00:00:00.000Z" },
      { project: "/a", indexedAt: "2024-01-03T00:00:00.000Z" },
    ]);
  });
});

describe("a list that cannot be read", () => {
  test("absent: no project", () => {
    expect(readIndexedProjects(join(tempDir("signet-code-list-"), "projects.json"))).toEqual([]);
  });

  test("a read that fails otherwise, damaged JSON, or no projects list: unavailable, naming the list; never written over", () => {
    const dir = tempDir("signet-code-list-");
    const unreadable = join(dir, "unreadable.json");
    mkdirSync(unreadable);
    const cases: [string, string][] = [[unreadable, `the list of indexed projects ${unreadable} cannot be read (EISDIR`]];
    for (const [name, content, why] of [
      ["truncated.json", '{"projects": [', "it is not valid JSON"],
      ["other.json", '{"files": []}\n', "it has no `projects` list"],
    ]) {
      const path = join(dir, name!);
      writeFileSync(path, content!);
      cases.push([path, `the list of indexed projects ${path} is damaged: ${why}`]);
    }
    for (const [path, message] of cases) {
      const before = readOrDir(path);
      const read = catching(() => readIndexedProjects(path));
      expect([path, read instanceof SignetError && read.code]).toEqual([path, "unavailable"]);
      expect((read as Error).message).toStartWith(message);
      const record = catching(() => recordIndexedProject(path, { project: "/new", indexedAt: new Date().toISOString() }));
      expect((record as Error).message).toStartWith(`/new was indexed but not recorded among the indexed projects: ${message}`);
      expect(readOrDir(path)).toBe(before);
    }
  });
});

function catching(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

function readOrDir(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "(a directory)";
  }
}
