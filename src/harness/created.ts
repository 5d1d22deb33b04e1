// What `signet setup` created, so that `--uninstall` takes away what setup added and nothing else:
// the config files and directories that did not exist before setup wrote them, and the objects and
// lists in existing JSON configs that setup added for its entries (`mcpServers`, `hooks`, an event's
// list), listed in `$SIGNET_PATH/.daemon/setup-created.json`. A listed file that holds nothing (an
// empty object, an empty TOML document, no comments) once Signet's entry is out is deleted; a listed
// directory goes once it is empty, and so does a listed container. A file that existed before setup
// is never deleted, however empty; a container that was there before (`"mcpServers": {}`, as
// `claude mcp remove` leaves it) stays.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { daemonDir } from "../config/paths";
import { lstatRefusingSymlink, makeOwnerOnlyDir, writeOwnerOnlyFile } from "../os/owner-only-files";

/** An object or list setup added to a config: the file, and its JSON path in it. */
export interface CreatedContainer {
  file: string;
  path: string[];
}

export interface CreatedRecord {
  files: string[];
  dirs: string[];
  containers: CreatedContainer[];
}

export function createdRecordPath(dataDir: string): string {
  return join(daemonDir(dataDir), "setup-created.json");
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function containers(v: unknown): CreatedContainer[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((c) => (typeof c?.file === "string" && Array.isArray(c.path) && c.path.length > 0 ? [{ file: c.file, path: strings(c.path) }] : []));
}

/** The record; empty when there is none (or it is unreadable: then nothing is judged Signet's). */
export function readCreated(dataDir: string): CreatedRecord {
  let data: { files?: unknown; dirs?: unknown; containers?: unknown };
  try {
    data = JSON.parse(readFileSync(createdRecordPath(dataDir), "utf8"));
  } catch {
    return { files: [], dirs: [], containers: [] };
  }
  return { files: strings(data?.files), dirs: strings(data?.dirs), containers: containers(data?.containers) };
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((k, i) => k === b[i]);

/** Whether setup created the file, or the container at `path` in it. */
export function createdHere(record: CreatedRecord, file: string, path: readonly string[]): boolean {
  return record.files.includes(file) || record.containers.some((c) => c.file === file && samePath(c.path, path));
}

/** The record as written: sorted, each item once. */
function canonical(record: CreatedRecord): CreatedRecord {
  const unique = new Map(record.containers.map((c) => [JSON.stringify([c.file, ...c.path]), c]));
  const containers = [...unique.keys()].sort().map((k) => unique.get(k)!);
  return { files: [...new Set(record.files)].sort(), dirs: [...new Set(record.dirs)].sort(), containers };
}

export function sameRecord(a: CreatedRecord, b: CreatedRecord): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Writes the record owner-only (never through a link in .daemon); an empty record removes the file. */
export function writeCreated(dataDir: string, record: CreatedRecord): void {
  const dir = daemonDir(dataDir);
  const exists = lstatRefusingSymlink(dir) !== undefined;
  if (record.files.length === 0 && record.dirs.length === 0 && record.containers.length === 0) {
    if (exists) rmSync(createdRecordPath(dataDir), { force: true });
    return;
  }
  if (!exists) makeOwnerOnlyDir(dir);
  const { files, dirs, containers } = canonical(record);
  writeOwnerOnlyFile(createdRecordPath(dataDir), `${JSON.stringify({ files, dirs, ...(containers.length > 0 ? { containers } : {}) }, null, 2)}\n`);
}

/** Text with nothing in it but an empty object or nothing at all (a JSON or TOML config left empty). */
export function isEmptyConfig(text: string): boolean {
  return /^\s*(\{\s*\})?\s*$/.test(text.replace(/^\uFEFF/, ""));
}
