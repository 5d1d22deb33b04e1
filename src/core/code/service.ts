// The daemon's view of the code indexes (docs/code.md#which-project-answers): each request is answered
// from the index of the project it names (the caller's working directory, or one inside an indexed
// project), or, when it names none, from the project indexed last. A folder no index covers gets an
// answer saying so and how to make one, never another project's index. Databases are opened on first
// use and reopened when replaced (a new `signet index`, a clear). Indexing itself runs in the CLI
// process (docs/architecture.md#code-index). A project in the daemon's data directory (recorded
// before `signet index` refused one) is not answered from: it is never indexed (files/data-dir.ts).
import type { Database } from "bun:sqlite";
import { realpathSync, statSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import { resolveDataDir } from "../../config/load";
import {
  NO_PROJECT_MESSAGE,
  type CodeBlastRequest,
  type CodeBlastResponse,
  type CodeBriefingResponse,
  type CodeClearResponse,
  type CodeConstantsQuery,
  type CodeConstantsResponse,
  type CodeContextRequest,
  type CodeContextResponse,
  type CodeDoctorResponse,
  type CodeSearchRequest,
  type CodeSearchResponse,
  type CodeStatusResponse,
} from "../../contracts/code";
import { SignetError, invalidInput } from "../../contracts/errors";
import { DataDirFence, dataDirRefusal } from "../files/data-dir";
import { errCode } from "../sources/read";
import { diagnose, indexStatus } from "./health";
import { lastIndexed, projectOf, readIndexedProjects } from "./projects";
import { blastRadius, briefing, sharedConstants, symbolContext } from "./queries";
import { searchSymbols } from "./search";
import { indexDbPath, openIndex, removeIndexFiles, UnusableIndex } from "./store";

/** Databases kept open at once: a few projects' sessions at a time; the least recently used closes. */
const MAX_OPEN = 8;

interface Open {
  db: Database;
  /** The database file's inode when opened: another one there means it was replaced. */
  ino: number;
}

/** The folder as `signet index` records projects: its links resolved when it exists. */
function realFolder(absolute: string): string {
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** The inode of the project's index database, null when there is none; any other failure to look is an error naming it. */
function indexFileInode(project: string): number | null {
  const path = indexDbPath(project);
  let st: Stats | undefined;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    throw new UnusableIndex("database", `the code index ${path} cannot be read (${errCode(err)})`, `check ${path} and the folders above it, then run \`signet index ${project}\``);
  }
  return st ? st.ino : null;
}

export class CodeIndexService {
  /** Open databases by project, least recently used first. */
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly projectsPath: string,
    /** The daemon's data directory (by default the one SIGNET_PATH names): never indexed, so no project in it answers, and no file of it is read. */
    private readonly dataDir: string = resolveDataDir(),
  ) {}

  /**
   * The indexed project that answers for `requested` (a folder), or for no folder the one indexed
   * last, with the data directory as this request sees it (its fence keeps the request's reads out of it).
   */
  private project(requested: string | undefined): { project: string; fence: DataDirFence } {
    const project = this.indexedProject(requested);
    const fence = new DataDirFence(this.dataDir);
    if (fence.holds(project)) throw invalidInput(`project: ${dataDirRefusal(project, project, fence)}`);
    return { project, fence };
  }

  private indexedProject(requested: string | undefined): string {
    const projects = readIndexedProjects(this.projectsPath);
    if (requested === undefined) {
      const last = lastIndexed(projects);
      if (!last) throw new SignetError("not_found", NO_PROJECT_MESSAGE);
      return last.project;
    }
    const folder = resolve(requested);
    const found = projectOf(projects, folder) ?? projectOf(projects, realFolder(folder));
    // The folder as asked, not as resolved: the answer tells a caller nothing of the disk it did not know.
    if (!found) throw new SignetError("not_found", `no code index for ${folder}: run \`signet index ${folder}\` (or on the project's root folder) to make one`);
    return found.project;
  }

  /** The project's database; null when its file is missing (doctor reports that). */
  private database(project: string, fence: DataDirFence): Database | null {
    const ino = indexFileInode(project);
    const cached = this.open.get(project);
    if (cached) {
      this.open.delete(project);
      if (cached.ino === ino) {
        this.open.set(project, cached);
        return cached.db;
      }
      cached.db.close();
    }
    if (ino === null) return null;
    const db = openIndex(project, { rebuild: false }, fence);
    this.open.set(project, { db, ino });
    for (const [other, { db: oldest }] of this.open) {
      if (this.open.size <= MAX_OPEN) break;
      oldest.close();
      this.open.delete(other);
    }
    return db;
  }

  private withIndex<T>(requested: string | undefined, use: (db: Database, project: string, fence: DataDirFence) => T): T {
    const { project, fence } = this.project(requested);
    const db = this.database(project, fence);
    if (!db) throw new SignetError("not_found", `the code index of ${project} is missing: run \`signet index ${project}\``);
    try {
      return use(db, project, fence);
    } catch (err) {
      // SQLite's errors (a file damaged since it was opened) say nothing of the file: said with it.
      if ((err as { name?: string }).name !== "SQLiteError") throw err;
      throw new SignetError("unavailable", `the code index ${indexDbPath(project)} cannot be used: ${(err as Error).message}: run \`signet code doctor\``);
    }
  }

  search(req: CodeSearchRequest): CodeSearchResponse {
    return this.withIndex(req.project, (db, project) => searchSymbols(db, project, req));
  }

  context(req: CodeContextRequest): CodeContextResponse {
    return this.withIndex(req.project, (db, project, fence) => symbolContext(db, project, req.symbol, fence));
  }

  blast(req: CodeBlastRequest): CodeBlastResponse {
    return this.withIndex(req.project, (db, project) => blastRadius(db, project, req));
  }

  status(requested?: string): CodeStatusResponse {
    return this.withIndex(requested, (db, project, fence) => indexStatus(db, project, fence));
  }

  constants(q: CodeConstantsQuery): CodeConstantsResponse {
    return this.withIndex(q.project, (db, project) => sharedConstants(db, project, q));
  }

  briefing(compact: boolean, requested?: string): CodeBriefingResponse {
    return this.withIndex(requested, (db, project) => briefing(db, project, compact));
  }

  async doctor(requested?: string): Promise<CodeDoctorResponse> {
    const { project, fence } = this.project(requested);
    const unusable = (check: string, detail: string, fix: string): CodeDoctorResponse => ({
      project,
      ok: false,
      checks: [{ name: check, ok: false, detail }],
      problems: [{ problem: `${check}: ${detail}`, fix }],
    });
    let db: Database | null;
    try {
      db = this.database(project, fence);
    } catch (err) {
      // An index that cannot be opened as it is (another schema version, not a database): that is the problem to report.
      if (!(err instanceof UnusableIndex)) throw err;
      return unusable(err.check, err.message, err.fix);
    }
    try {
      return await diagnose(db, project, fence);
    } catch (err) {
      // Pages damaged past what opening it reads: SQLite's error, with the file.
      if ((err as { name?: string }).name !== "SQLiteError") throw err;
      return unusable("database", `${indexDbPath(project)}: ${(err as Error).message}`, `run \`signet code clear --confirm\`, then run \`signet index ${project}\``);
    }
  }

  /** Deletes the project's graphiq.db and manifest.json and leaves a fresh empty database; it stays indexed (empty). */
  clear(requested?: string): CodeClearResponse {
    const { project, fence } = this.project(requested);
    this.open.get(project)?.db.close();
    this.open.delete(project);
    removeIndexFiles(project);
    openIndex(project, { rebuild: true }, fence).close();
    return { project, cleared: true };
  }

  close(): void {
    for (const { db } of this.open.values()) db.close();
    this.open.clear();
  }
}
