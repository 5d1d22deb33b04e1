// The indexed projects (docs/code.md#which-project-answers): the only thing Signet itself keeps of
// code indexes, each project's own index living in <project>/.graphiq. `signet index` records a
// project here; the daemon reads the list on every code request and answers a caller from the index
// of the project it works in, never from another one it was not asked about. Only a list that is not
// there means "no project"; one that cannot be read is an error, and is never written over.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, sep } from "node:path";
import { SignetError } from "../../contracts/errors";
import { makeOwnerOnlyDir, writeOwnerOnlyFile } from "../../os/owner-only-files";
import { errCode } from "../sources/read";
import { takeLock } from "./file-lock";

/** How long recording a project waits for another `signet index` recording its own (a read and a rename). */
const LIST_LOCK_WAIT_MS = 10_000;

export interface IndexedProject {
  /** The project's folder: absolute, its links resolved. */
  project: string;
  indexedAt: string;
}

/** The indexed projects; none when the list does not exist yet. A list that cannot be read is `unavailable`, naming it. */
export function readIndexedProjects(listPath: string): IndexedProject[] {
  let text: string;
  try {
    text = readFileSync(listPath, "utf8");
  } catch (err) {
    if (errCode(err) === "ENOENT") return [];
    throw new SignetError("unavailable", `the list of indexed projects ${listPath} cannot be read (${(err as Error).message})`);
  }
  let value: { projects?: unknown };
  try {
    value = JSON.parse(text) as { projects?: unknown };
  } catch (err) {
    throw damaged(listPath, `it is not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(value?.projects)) throw damaged(listPath, "it has no `projects` list");
  return value.projects.filter(
    (p): p is IndexedProject => typeof p?.project === "string" && p.project !== "" && typeof p.indexedAt === "string",
  );
}

function damaged(listPath: string, why: string): SignetError {
  return new SignetError("unavailable", `the list of indexed projects ${listPath} is damaged: ${why}; fix it, or remove it and run \`signet index\` on each project again`);
}

/**
 * Records (or refreshes) `indexed` in the list: read, changed and written whole (renamed into
 * place) under a lock, so runs of other projects at the same time each keep their entry. A list
 * that cannot be read is left as it is.
 */
export function recordIndexedProject(listPath: string, indexed: IndexedProject): void {
  makeOwnerOnlyDir(dirname(listPath));
  const lockPath = `${listPath}.lock`;
  const lock = takeLock(lockPath, LIST_LOCK_WAIT_MS);
  const notRecorded = `${indexed.project} was indexed but not recorded among the indexed projects`;
  if (!lock) throw new SignetError("unavailable", `${notRecorded}: another process held ${lockPath} for ${LIST_LOCK_WAIT_MS / 1000} s; run \`signet index ${indexed.project}\` again`);
  try {
    let others: IndexedProject[];
    try {
      others = readIndexedProjects(listPath).filter((p) => p.project !== indexed.project);
    } catch (err) {
      throw new SignetError("unavailable", `${notRecorded}: ${(err as Error).message}`);
    }
    writeOwnerOnlyFile(listPath, `${JSON.stringify({ projects: [...others, indexed] }, null, 2)}\n`);
  } finally {
    lock.release();
  }
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
