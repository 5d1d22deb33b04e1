// Plan, then apply: the plan reads every file a registration touches and computes its new text
// ({path, before, after}); --dry-run shows the plan as a diff, apply writes it. Nothing is written
// until every file has been read and edited in memory, so one bad file changes none. Files,
// directories and containers in JSON configs that setup creates are recorded (created.ts) for
// --uninstall to take away again.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { claudeCode } from "./claude-code";
import { codex } from "./codex";
import { createdHere, createdRecordPath, isEmptyConfig, readCreated, sameRecord, writeCreated, type CreatedContainer, type CreatedRecord } from "./created";
import { containerState } from "./json-edit";
import { opencode } from "./opencode";
import { HARNESS_NAMES, type Harness, type HarnessContext, type HarnessName } from "./types";

export { HARNESS_NAMES, type HarnessName } from "./types";

const HARNESSES: Record<HarnessName, Harness> = { "claude-code": claudeCode, codex, opencode };

export function isHarnessName(name: string): name is HarnessName {
  return (HARNESS_NAMES as readonly string[]).includes(name);
}

export const harnessLabel = (name: HarnessName): string => HARNESSES[name].label;

/** A config file that cannot be read or edited; names the file. The operation fails (exit 1). */
export class HarnessConfigError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}; nothing was changed`);
    this.name = "HarnessConfigError";
  }
}

/** `removed`: Signet's entry taken out; `deleted`: the file too (setup created it and nothing else is in it). */
export type FileAction = "created" | "updated" | "unchanged" | "removed" | "deleted";

interface PlannedFile {
  path: string;
  entry: string;
  reason?: string;
  before: string | null;
  after: string | null;
  action: FileAction;
}

/** Containers in JSON configs: those an install adds to a file that was there (recorded), and those it found there empty (the user's). */
interface ContainerChanges {
  added: CreatedContainer[];
  found: CreatedContainer[];
}

export interface SetupPlan {
  harness: HarnessName;
  label: string;
  uninstall: boolean;
  dataDir: string;
  files: PlannedFile[];
  /** Directories that writing the new files creates. */
  newDirs: string[];
  /** Directories setup created above these files, deepest first: --uninstall removes those left empty. */
  oldDirs: string[];
  containers: ContainerChanges;
  notes: string[];
}

export interface AppliedFile {
  path: string;
  action: FileAction;
  entry: string;
  reason?: string;
  backup?: string;
}

export interface Applied {
  files: AppliedFile[];
  /** Directories setup had created and --uninstall removed, being empty. */
  removedDirs: string[];
  notes: string[];
}

// ignoreBOM keeps a byte order mark in the text, so that an edit writes it back.
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function errorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === "EACCES" || e?.code === "EPERM") return "permission denied";
  if (e?.code === "EISDIR") return "is a directory, not a file";
  if (e?.code === "ENOTDIR") return "a parent of it is not a directory";
  return e?.message ?? String(err);
}

/** The file's text, or null when it does not exist. */
export function readConfigText(path: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new HarnessConfigError(path, `cannot read it: ${errorText(err)}`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new HarnessConfigError(path, "not valid UTF-8 text");
  }
}

function actionFor(before: string | null, after: string | null, removes: boolean): FileAction {
  if (before === after) return "unchanged";
  if (before === null) return "created";
  if (after === null) return "deleted";
  return removes ? "removed" : "updated";
}

/** The directories above `path` that do not exist yet, nearest first. */
function missingDirs(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); !existsSync(dir) && dir !== dirname(dir); dir = dirname(dir)) out.push(dir);
  return out;
}

/** Which of `paths` an edit of an existing file adds, and which it found there empty; into `changes`. */
function containerChanges(file: string, before: string | null, after: string | null, paths: string[][], changes: ContainerChanges): void {
  if (before === null || before === after) return;
  for (const path of paths) {
    try {
      const was = containerState(before, path);
      if (was === "empty") changes.found.push({ file, path });
      else if (was === "absent" && after !== null && containerState(after, path) !== "absent") changes.added.push({ file, path });
    } catch {
      // A file the edit could read but this cannot: nothing to record.
    }
  }
}

export function planSetup(name: HarnessName, ctx: HarnessContext): SetupPlan {
  const harness = HARNESSES[name];
  const record = readCreated(ctx.dataDir);
  const notes: string[] = [];
  const containers: ContainerChanges = { added: [], found: [] };
  const planned = harness.files(ctx).map(({ path, entry, reason, removes, containers: containerPaths = [], edit, notes: notesOf }) => {
    const before = readConfigText(path);
    let after: string | null;
    try {
      after = edit(before, (container) => createdHere(record, path, container));
    } catch (err) {
      throw new HarnessConfigError(path, (err as Error).message);
    }
    // A file setup created goes when nothing but Signet's entry was in it.
    if (removes && after !== null && record.files.includes(path) && isEmptyConfig(after)) after = null;
    notes.push(...(notesOf?.(before) ?? []));
    containerChanges(path, before, after, containerPaths, containers);
    const file: PlannedFile = { path, entry, before, after, action: actionFor(before, after, removes) };
    const why = reason?.(before);
    return why ? { ...file, reason: why } : file;
  });
  // A file that is not there and stays away was not touched.
  const files = planned.filter((f) => f.before !== null || f.after !== null);
  const newDirs = [...new Set(files.filter((f) => f.action === "created").flatMap((f) => missingDirs(writeTarget(f.path))))];
  const under = (dir: string) => planned.some((f) => f.path.startsWith(dir + sep));
  const oldDirs = ctx.install ? [] : record.dirs.filter(under).sort((a, b) => b.length - a.length);
  notes.push(...(harness.notes?.(ctx) ?? []));
  return { harness: name, label: harness.label, uninstall: !ctx.install, dataDir: ctx.dataDir, files, newDirs, oldDirs, containers, notes };
}

/** Where writes really go: a symlinked config (dotfile managers) is edited at its target. */
function writeTarget(path: string): string {
  let p = path;
  for (let i = 0; i < 40; i++) {
    let link: string;
    try {
      if (!lstatSync(p).isSymbolicLink()) return p;
      link = readlinkSync(p);
    } catch {
      return p;
    }
    p = resolve(dirname(p), link);
  }
  return p;
}

function writeAtomic(path: string, text: string): void {
  const target = writeTarget(path);
  mkdirSync(dirname(target), { recursive: true });
  let mode = 0o600;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    // a new file: readable by its owner only, like the harnesses' own state files
  }
  const tmp = `${target}.signet-tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/** Copies the file as it is now to `<file>.signet-backup-<UTC time>` (never over an older backup). */
function backup(path: string, now: Date): string {
  const source = writeTarget(path);
  const bytes = readFileSync(source);
  const mode = statSync(source).mode & 0o7777;
  const base = `${path}.signet-backup-${stamp(now)}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    try {
      writeFileSync(name, bytes, { flag: "wx", mode });
      chmodSync(name, mode);
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

/** Removes a directory if it is empty. */
function removeIfEmpty(dir: string): "removed" | "absent" | "kept" {
  try {
    rmdirSync(dir);
    return "removed";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "kept";
  }
}

/** The record with what an install plan creates: new files and directories, containers added to existing files. */
function withCreated(record: CreatedRecord, plan: SetupPlan): CreatedRecord {
  // A container found empty is the user's from then on, whoever made it first.
  const found = { ...record, files: [], containers: plan.containers.found };
  return {
    files: [...record.files, ...plan.files.filter((f) => f.action === "created").map((f) => f.path)],
    dirs: [...record.dirs, ...plan.newDirs],
    containers: [...record.containers.filter((c) => !createdHere(found, c.file, c.path)), ...plan.containers.added],
  };
}

/**
 * Writes what the plan computed. Each existing file that changes is backed up first (but for one
 * deleted: setup created it and it holds nothing else). A file that changed on disk since it was
 * planned stops everything before any write; a write that fails puts back the files already written.
 * New files are recorded before they are written, so a failure to record changes nothing.
 */
export function applyPlan(plan: SetupPlan, now = new Date()): Applied {
  for (const f of plan.files) {
    if (f.action === "unchanged") continue;
    if (readConfigText(f.path) !== f.before) throw new HarnessConfigError(f.path, "it changed while signet was editing it; run the command again");
  }
  const record = readCreated(plan.dataDir);
  const recorded = plan.uninstall ? record : withCreated(record, plan);
  const recording = !sameRecord(recorded, record);
  if (recording) {
    try {
      writeCreated(plan.dataDir, recorded);
    } catch (err) {
      throw new HarnessConfigError(createdRecordPath(plan.dataDir), `cannot record the files setup creates in it: ${errorText(err)}`);
    }
  }
  const results: AppliedFile[] = [];
  const written: PlannedFile[] = [];
  let current = plan.files[0]?.path ?? "";
  try {
    for (const f of plan.files) {
      current = f.path;
      const result: AppliedFile = { path: f.path, action: f.action, entry: f.entry, ...(f.reason ? { reason: f.reason } : {}) };
      results.push(result);
      if (f.action === "unchanged") continue;
      if (f.before !== null && f.action !== "deleted") result.backup = backup(f.path, now);
      if (f.after === null) rmSync(writeTarget(f.path), { force: true });
      else writeAtomic(f.path, f.after);
      written.push(f);
    }
  } catch (err) {
    for (const f of written.reverse()) {
      try {
        if (f.before === null) rmSync(writeTarget(f.path), { force: true });
        else writeAtomic(f.path, f.before);
      } catch {
        // best effort: the backup is still there
      }
    }
    try {
      if (recording) writeCreated(plan.dataDir, record);
    } catch {
      // best effort: a record of files that are not there deletes nothing
    }
    if (err instanceof HarnessConfigError) throw err;
    throw new HarnessConfigError(current, `cannot write it: ${errorText(err)}`);
  }
  if (!plan.uninstall) return { files: results, removedDirs: [], notes: [] };
  // The files are no longer Signet's to judge; the directories it created go once empty.
  const outcome = new Map(plan.oldDirs.map((dir) => [dir, removeIfEmpty(dir)]));
  const removedDirs = plan.oldDirs.filter((dir) => outcome.get(dir) === "removed");
  const notes: string[] = [];
  try {
    const done = new Set(plan.files.map((f) => f.path));
    const kept = (dir: string) => (outcome.get(dir) ?? "kept") === "kept";
    writeCreated(plan.dataDir, {
      files: record.files.filter((p) => !done.has(p) && existsSync(p)),
      dirs: record.dirs.filter(kept),
      containers: record.containers.filter((c) => !done.has(c.file)),
    });
  } catch (err) {
    notes.push(`the entries are out, but the record of what setup created could not be updated: ${errorText(err)}`);
  }
  return { files: results, removedDirs, notes };
}
