// Plan, then apply: the plan reads every file a registration touches and computes its new text
// ({path, before, after}); --dry-run shows the plan as a diff, apply writes it. Nothing is written
// until every file has been read and edited in memory, so one bad file changes none.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, resolve } from "node:path";
import { claudeCode } from "./claude-code";
import { codex } from "./codex";
import { opencode } from "./opencode";
import { HARNESS_NAMES, MCP_COMMAND, type Harness, type HarnessContext, type HarnessName } from "./types";

export { HARNESS_NAMES, type HarnessName } from "./types";

const HARNESSES: Record<HarnessName, Harness> = { "claude-code": claudeCode, codex, opencode };

export function isHarnessName(name: string): name is HarnessName {
  return (HARNESS_NAMES as readonly string[]).includes(name);
}

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

export type FileAction = "created" | "updated" | "unchanged" | "removed";

interface PlannedFile {
  path: string;
  before: string | null;
  after: string | null;
  action: FileAction;
}

export interface SetupPlan {
  harness: HarnessName;
  label: string;
  uninstall: boolean;
  files: PlannedFile[];
  notes: string[];
}

export interface AppliedFile {
  path: string;
  action: FileAction;
  backup?: string;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

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

function actionFor(before: string | null, after: string | null, uninstall: boolean): FileAction {
  if (before === after) return "unchanged";
  if (before === null) return "created";
  return uninstall ? "removed" : "updated";
}

export function planSetup(name: HarnessName, ctx: HarnessContext): SetupPlan {
  const harness = HARNESSES[name];
  const files = harness.files(ctx).map(({ path, edit }) => {
    const before = readConfigText(path);
    let after: string | null;
    try {
      after = edit(before);
    } catch (err) {
      throw new HarnessConfigError(path, (err as Error).message);
    }
    return { path, before, after, action: actionFor(before, after, ctx.uninstall) };
  });
  const notes = harness.notes(ctx);
  if (!ctx.uninstall && !Bun.which(MCP_COMMAND, { PATH: ctx.env.PATH ?? "" })) {
    notes.push(`${MCP_COMMAND} is not on PATH: run \`signet self-install\` (or put it on PATH) so ${harness.label} can start it`);
  }
  return { harness: name, label: harness.label, uninstall: ctx.uninstall, files, notes };
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

/**
 * Writes what the plan computed. Each existing file that changes is backed up first. A file that
 * changed on disk since it was planned stops everything before any write; a write that fails
 * puts back the files already written.
 */
export function applyPlan(plan: SetupPlan, now = new Date()): AppliedFile[] {
  for (const f of plan.files) {
    if (f.action === "unchanged") continue;
    if (readConfigText(f.path) !== f.before) throw new HarnessConfigError(f.path, "it changed while signet was editing it; run the command again");
  }
  const results: AppliedFile[] = [];
  const written: PlannedFile[] = [];
  let current = plan.files[0]?.path ?? "";
  try {
    for (const f of plan.files) {
      current = f.path;
      if (f.action === "unchanged") {
        results.push({ path: f.path, action: f.action });
        continue;
      }
      const saved = f.before === null ? undefined : backup(f.path, now);
      if (f.after === null) rmSync(writeTarget(f.path), { force: true });
      else writeAtomic(f.path, f.after);
      written.push(f);
      results.push(saved ? { path: f.path, action: f.action, backup: saved } : { path: f.path, action: f.action });
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
    if (err instanceof HarnessConfigError) throw err;
    throw new HarnessConfigError(current, `cannot write it: ${errorText(err)}`);
  }
  return results;
}
