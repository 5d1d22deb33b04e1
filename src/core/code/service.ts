// The daemon's view of the code index (docs/code.md): the active project's database, opened on first
// use and reopened when the pointer moves or the database file is replaced (a new `signet index`
// elsewhere, a clear). Indexing itself runs in the CLI process (docs/architecture.md#code-index).
import type { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import {
  NO_PROJECT_MESSAGE,
  type CodeBlastRequest,
  type CodeBlastResponse,
  type CodeBriefingResponse,
  type CodeClearResponse,
  type CodeConstantsQuery,
  type CodeConstantsResponse,
  type CodeContextResponse,
  type CodeDoctorResponse,
  type CodeSearchRequest,
  type CodeSearchResponse,
  type CodeStatusResponse,
} from "../../contracts/code";
import { SignetError } from "../../contracts/errors";
import { diagnose, indexStatus } from "./health";
import { readActiveProject } from "./pointer";
import { blastRadius, briefing, searchSymbols, sharedConstants, symbolContext } from "./queries";
import { indexDbPath, openIndex, removeIndexFiles } from "./store";

interface Open {
  project: string;
  db: Database;
  /** The database file's inode when opened: another one there means it was replaced. */
  ino: number;
}

export class CodeIndexService {
  private open: Open | undefined;

  constructor(private readonly pointerPath: string) {}

  /** The active project, or an error saying how to make one. */
  private project(): string {
    const active = readActiveProject(this.pointerPath);
    if (!active) throw new SignetError("not_found", NO_PROJECT_MESSAGE);
    return active.project;
  }

  /** The active project's database; null when its file is missing (doctor reports that). */
  private database(project: string): Database | null {
    const path = indexDbPath(project);
    const ino = existsSync(path) ? statSync(path).ino : null;
    if (this.open && (this.open.project !== project || this.open.ino !== ino)) this.close();
    if (ino === null) return null;
    if (!this.open) this.open = { project, db: openIndex(project, { rebuild: false }), ino };
    return this.open.db;
  }

  private withIndex<T>(use: (db: Database, project: string) => T): T {
    const project = this.project();
    const db = this.database(project);
    if (!db) throw new SignetError("not_found", `the code index of ${project} is missing: run \`signet index ${project}\``);
    return use(db, project);
  }

  search(req: CodeSearchRequest): CodeSearchResponse {
    return this.withIndex((db, project) => searchSymbols(db, project, req));
  }

  context(symbol: string): CodeContextResponse {
    return this.withIndex((db, project) => symbolContext(db, project, symbol));
  }

  blast(req: CodeBlastRequest): CodeBlastResponse {
    return this.withIndex((db, project) => blastRadius(db, project, req));
  }

  status(): CodeStatusResponse {
    return this.withIndex((db, project) => indexStatus(db, project));
  }

  constants(q: CodeConstantsQuery): CodeConstantsResponse {
    return this.withIndex((db, project) => sharedConstants(db, project, q));
  }

  briefing(compact: boolean): CodeBriefingResponse {
    return this.withIndex((db, project) => briefing(db, project, compact));
  }

  async doctor(): Promise<CodeDoctorResponse> {
    const project = this.project();
    let db: Database | null;
    try {
      db = this.database(project);
    } catch (err) {
      // An index of another schema version: that is the problem to report.
      const detail = (err as Error).message;
      return { project, ok: false, checks: [{ name: "schema", ok: false, detail }], problems: [{ problem: `schema: ${detail}`, fix: `run \`signet index ${project}\`` }] };
    }
    return diagnose(db, project);
  }

  /** Deletes graphiq.db and manifest.json and leaves a fresh empty database; the pointer stays. */
  clear(): CodeClearResponse {
    const project = this.project();
    this.close();
    removeIndexFiles(project);
    openIndex(project).close();
    return { project, cleared: true };
  }

  close(): void {
    this.open?.db.close();
    this.open = undefined;
  }
}
