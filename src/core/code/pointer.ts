// The active project pointer (docs/code.md#the-active-project): the only thing Signet itself keeps of
// a code index. `signet index` writes it; the daemon reads it on every code request, so indexing
// another path moves every surface to it at once.
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { makeOwnerOnlyDir, writeOwnerOnlyFile } from "../../os/owner-only-files";

export interface ActiveProject {
  project: string;
  indexedAt: string;
}

export function readActiveProject(pointerPath: string): ActiveProject | null {
  try {
    const value = JSON.parse(readFileSync(pointerPath, "utf8")) as Partial<ActiveProject>;
    return typeof value.project === "string" && value.project !== "" ? { project: value.project, indexedAt: String(value.indexedAt ?? "") } : null;
  } catch {
    return null; // none yet, or unreadable: no project is active
  }
}

export function writeActiveProject(pointerPath: string, active: ActiveProject): void {
  makeOwnerOnlyDir(dirname(pointerPath));
  writeOwnerOnlyFile(pointerPath, `${JSON.stringify(active)}\n`);
}
