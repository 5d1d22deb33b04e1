// The daemon's view of the code indexes (docs/code.md#which-project-answers): each request is answered
// from the index of the project it names (the caller's working directory, or one inside an indexed
// project), or, when it names none, from the project indexed last. A folder no index covers gets an
// answer saying so and how to make one, never another project's index. Databases are opened on first
// use and reopened when replaced (a new `signet index`, a clear). Indexing itself runs in the CLI
// process (docs/architecture.md#code-index). A project in the daemon's data directory (recorded
// before `signet index` refused one) is not answered from: it is never indexed (files/data-dir.ts).
import type { Database } from "bun:sqlite";
import { existsSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
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
import { dataDirRefusal, fenceOf } from "../files/data-dir";
import { diagnose, indexStatus } from "./health";
import { lastIndexed, projectOf, readIndexedProjects } from "./projects";
import { blastRadius, briefing, sharedConstants, symbolContext } from "./queries";
import { searchSymbols } from "./search";
import { indexDbPath, openIndex, removeIndexFiles } from "./store";

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

export class CodeIndexService {
  /** Open databases by project, least recently used first. */
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly projectsPath: string,
    /** The daemon's data directory: never indexed, so no project in it answers. */
    private readonly dataDir?: string,
  ) {}

  /** The indexed project that answers for `requested` (a folder), or for no folder the one indexed last. */
  private project(requested: string | undefined): string {
    const project = this.indexedProject(requested);
    const fence = fenceOf(this.dataDir);
    if (fence?.holds(project)) throw invalidInput(`project: ${dataDirRefusal(project, project, fence)}`);
    return project;
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
  private database(project: string): Database | null {
    const path = indexDbPath(project);
    const ino = existsSync(path) ? statSync(path).ino : null;
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
    const db = openIndex(project, { rebuild: false });
    this.open.set(project, { db, ino });
    for (const [other, { db: oldest }] of this.open) {
      if (this.open.size <= MAX_OPEN) break;
      oldest.close();
      this.open.delete(other);
    }
    return db;
  }

  private withIndex<T>(requested: string | undefined, use: (db: Database, project: string) => T): T {
    const project = this.project(requested);
    const db = this.database(project);
    if (!db) throw new SignetError("not_found", `the code index of ${project} is missing: run \`signet index ${project}\``);
    return use(db, project);
  }

  search(req: CodeSearchRequest): CodeSearchResponse {
    return this.withIndex(req.project, (db, project) => searchSymbols(db, project, req));
  }

  context(req: CodeContextRequest): CodeContextResponse {
    return this.withIndex(req.project, (db, project) => symbolContext(db, project, req.symbol));
  }

  blast(req: CodeBlastRequest): CodeBlastResponse {
    return this.withIndex(req.project, (db, project) => blastRadius(db, project, req));
  }

  status(requested?: string): CodeStatusResponse {
    return this.withIndex(requested, (db, project) => indexStatus(db, project, this.dataDir));
  }

  constants(q: CodeConstantsQuery): CodeConstantsResponse {
    return this.withIndex(q.project, (db, project) => sharedConstants(db, project, q));
  }

  briefing(compact: boolean, requested?: string): CodeBriefingResponse {
    return this.withIndex(requested, (db, project) => briefing(db, project, compact));
  }

  async doctor(requested?: string): Promise<CodeDoctorResponse> {
    const project = this.project(requested);
    let db: Database | null;
    try {
      db = this.database(project);
    } catch (err) {
      // An index of another schema version: that is the problem to report.
      const detail = (err as Error).message;
      return { project, ok: false, checks: [{ name: "schema", ok: false, detail }], problems: [{ problem: `schema: ${detail}`, fix: `run \`signet index ${project}\`` }] };
    }
    return diagnose(db, project, this.dataDir);
  }

  /** Deletes the project's graphiq.db and manifest.json and leaves a fresh empty database; it stays indexed (empty). */
  clear(requested?: string): CodeClearResponse {
    const project = this.project(requested);
    this.open.get(project)?.db.close();
    this.open.delete(project);
    removeIndexFiles(project);
    openIndex(project).close();
    return { project, cleared: true };
  }

  close(): void {
    for (const { db } of this.open.values()) db.close();
    this.open.clear();
  }
}
