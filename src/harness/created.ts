// What `signet setup` created, so that `--uninstall` takes away what setup added and nothing else:
// the config files and directories that did not exist before setup wrote them, listed in
// `$SIGNET_PATH/.daemon/setup-created.json`. A listed file that holds nothing (an empty object, an
// empty TOML document, no comments) once Signet's entry is out is deleted; a listed directory goes
// once it is empty. A file that existed before setup is never deleted, however empty.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { daemonDir } from "../config/paths";
import { lstatRefusingSymlink, makeOwnerOnlyDir, writeOwnerOnlyFile } from "../os/owner-only-files";

export interface CreatedRecord {
  files: string[];
  dirs: string[];
}

export function createdRecordPath(dataDir: string): string {
  return join(daemonDir(dataDir), "setup-created.json");
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** The record; empty when there is none (or it is unreadable: then nothing is judged Signet's). */
export function readCreated(dataDir: string): CreatedRecord {
  let data: { files?: unknown; dirs?: unknown };
  try {
    data = JSON.parse(readFileSync(createdRecordPath(dataDir), "utf8"));
  } catch {
    return { files: [], dirs: [] };
  }
  return { files: strings(data?.files), dirs: strings(data?.dirs) };
}

/** Writes the record owner-only (never through a link in .daemon); an empty record removes the file. */
export function writeCreated(dataDir: string, record: CreatedRecord): void {
  const dir = daemonDir(dataDir);
  const exists = lstatRefusingSymlink(dir) !== undefined;
  if (record.files.length === 0 && record.dirs.length === 0) {
    if (exists) rmSync(createdRecordPath(dataDir), { force: true });
    return;
  }
  if (!exists) makeOwnerOnlyDir(dir);
  writeOwnerOnlyFile(createdRecordPath(dataDir), `${JSON.stringify({ files: [...new Set(record.files)].sort(), dirs: [...new Set(record.dirs)].sort() }, null, 2)}\n`);
}

/** Text with nothing in it but an empty object or nothing at all (a JSON or TOML config left empty). */
export function isEmptyConfig(text: string): boolean {
  return /^\s*(\{\s*\})?\s*$/.test(text.replace(/^\uFEFF/, ""));
}
