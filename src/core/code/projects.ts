// The indexed projects (docs/code.md#which-project-answers): the only thing Signet itself keeps of
// code indexes, each project's own index living in <project>/.graphiq. `signet index` records a
// project here; the daemon reads the list on every code request and answers a caller from the index
// of the project it works in, never from another one it was not asked about.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, sep } from "node:path";
import { makeOwnerOnlyDir, writeOwnerOnlyFile } from "../../os/owner-only-files";

export interface IndexedProject {
  /** The project's folder: absolute, its links resolved. */
  project: string;
  indexedAt: string;
}

export function readIndexedProjects(listPath: string): IndexedProject[] {
  try {
    const value = JSON.parse(readFileSync(listPath, "utf8")) as { projects?: unknown };
    if (!Array.isArray(value.projects)) return [];
    return value.projects.filter(
      (p): p is IndexedProject => typeof p?.project === "string" && p.project !== "" && typeof p.indexedAt === "string",
    );
  } catch {
    return []; // none yet, or unreadable: no project is indexed
  }
}

/** Records (or refreshes) `indexed` in the list; written whole and renamed into place. */
export function recordIndexedProject(listPath: string, indexed: IndexedProject): void {
  const others = readIndexedProjects(listPath).filter((p) => p.project !== indexed.project);
  makeOwnerOnlyDir(dirname(listPath));
  writeOwnerOnlyFile(listPath, `${JSON.stringify({ projects: [...others, indexed] }, null, 2)}\n`);
}

/** Whether `dir` is `project` or a folder inside it. */
function within(project: string, dir: string): boolean {
  const rel = relative(project, dir);
  return rel === "" || (rel.split(sep, 1)[0] !== ".." && !isAbsolute(rel));
}

/** The indexed project `dir` is in: the innermost one when projects nest (a package inside a monorepo). */
export function projectOf(projects: IndexedProject[], dir: string): IndexedProject | null {
  let best: IndexedProject | null = null;
  for (const p of projects) if (within(p.project, dir) && (!best || p.project.length > best.project.length)) best = p;
  return best;
}

/** The project indexed last: what a caller that names no project (the HTTP API, /mcp) is answered from. */
export function lastIndexed(projects: IndexedProject[]): IndexedProject | null {
  let last: IndexedProject | null = null;
  for (const p of projects) if (!last || p.indexedAt > last.indexedAt) last = p;
  return last;
}
