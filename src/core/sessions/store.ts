// What sessions need of a store, and the rows both stores return: the SQLite one (sqlite-store.ts)
// and the PostgreSQL one (postgres-store.ts). Every change names the session's agent too: a key
// alone never reaches another agent's session.
import type { SessionMemory, SessionSummary } from "../../contracts/session";
import type { SessionRemovalResponse } from "../../contracts/session-removal";

export interface SessionRow {
  seq: number;
  key: string;
  agent_id: string;
  harness: string;
  project: string | null;
  parent_key: string | null;
  started_at: string;
  updated_at: string;
  ended_at: string | null;
  bypassed: number;
  injection_window: number;
  carry: string | null;
  summary: string | null;
  has_transcript: number;
}

export type InjectionVia = Exclude<SessionMemory["via"], "recall">;

export interface Opening {
  key: string;
  agentId: string;
  harness: string;
  project: string | null;
  parentKey: string | null;
  /** The harness process the hook ran under (`<pid>:<start>`), when it reported one. */
  harnessProcess?: string | null;
  at: string;
}

export interface MemoryLine {
  id: string;
  content: string;
  type: string;
}

export interface TranscriptHit {
  key: string;
  project: string | null;
  updated_at: string;
  excerpt: string;
}

export function toSummary(row: SessionRow): SessionSummary {
  return {
    key: row.key,
    agentId: row.agent_id,
    harness: row.harness,
    project: row.project,
    parentKey: row.parent_key,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
    bypassed: row.bypassed === 1,
    window: row.injection_window,
    hasTranscript: row.has_transcript === 1,
  };
}

/** Sessions, what reached them, their transcripts and the memories their context blocks show, in whichever store the daemon runs on. */
export interface SessionStore {
  /** `agentId`'s session `key`; null when there is none or another agent holds it. */
  get(key: string, agentId: string): Promise<SessionRow | null>;
  /**
   * Creates the session, or brings it up to date when it exists (a resumed session, or one a
   * bypass named first): harness, project and parent follow the latest report. A session stays
   * with its agent: null when another agent holds the key, which is left as it was.
   */
  open(o: Opening, reopen: boolean): Promise<SessionRow | null>;
  /** A session row for a key no hook reported yet, so a bypass set first is kept. */
  placeholder(key: string, agentId: string, at: string): Promise<void>;
  setBypass(key: string, agentId: string, on: boolean, at: string): Promise<void>;
  end(key: string, agentId: string, at: string): Promise<void>;
  setSummary(key: string, agentId: string, summary: string): Promise<void>;
  /** The memory ids pre-compaction chose to carry across (JSON), or null once they were. */
  setCarry(key: string, agentId: string, carry: string | null, at: string): Promise<void>;
  /** Opens the next injection window. */
  nextWindow(key: string, agentId: string, at: string): Promise<void>;
  list(agentId: string, filter: { active?: boolean; project?: string; harnessProcess?: string; limit: number }): Promise<SessionRow[]>;
  /**
   * The most recently active session of `agentId` whose key starts with `prefix` (`agent:<id>:`),
   * sub-agents' excluded; `<prefix>main` first when it exists.
   */
  latestMainSession(prefix: string, agentId: string, exceptKey: string): Promise<SessionRow | null>;
  /** The ids injected into the session's window, but for those only `exceptVia` gave. */
  injectedIn(key: string, agentId: string, window: number, exceptVia?: InjectionVia | null): Promise<Set<string>>;
  /**
   * Records injected memories; one injected earlier in the same window keeps the way it first came,
   * but for session start's block: a prompt that restates one of its memories takes it over.
   */
  recordInjected(key: string, agentId: string, window: number, via: InjectionVia, ids: string[], at: string): Promise<void>;
  memoriesOf(key: string, agentId: string): Promise<SessionMemory[]>;
  /** Live pinned memories `agentIds` may read, most important first. */
  pinned(agentIds: string[], limit: number): Promise<MemoryLine[]>;
  /** Live unpinned memories of one project, most important then most recent first. */
  ofProject(agentIds: string[], project: string, limit: number): Promise<MemoryLine[]>;
  /**
   * Live unpinned memories of no project whose type guides work anywhere (`types`: preferences,
   * decisions, rules), most important then most recent first.
   */
  globalGuidance(agentIds: string[], types: readonly string[], limit: number): Promise<MemoryLine[]>;
  /** Those of the given live memories `agentIds` may read, in the order of `ids`. */
  memoryLines(agentIds: string[], ids: string[]): Promise<MemoryLine[]>;
  transcript(seq: number): Promise<string | null>;
  setTranscript(seq: number, content: string): Promise<void>;
  /** The transcripts that best match the words of `query`, in scope, best first, each with an excerpt. */
  searchTranscripts(query: string, scope: { agentId: string; key?: string; project?: string }, limit: number): Promise<TranscriptHit[]>;
  /**
   * Records the session's ratings of memories that reached it, and recomputes each rated memory's
   * signal (the mean over sessions). Returns which ids were accepted, and how each accepted memory's
   * signal moved (the knowledge graph follows the move, so rating again with the same value moves nothing).
   */
  rate(key: string, agentId: string, ratings: [string, number][], at: string): Promise<{ accepted: Set<string>; moves: [string, number][] }>;
  /**
   * Removes session `key`, whichever agent holds it, and everything recorded under its key: the
   * session row, its transcript, what reached it, its presence and the messages given to it, in one
   * transaction (a message given only to a removed session counts as never given), its ratings with
   * it: each memory it rated gets its signal again from the other sessions' ratings (none when no
   * other rated it). Memories stored during the session stay; they are the agent's, not the
   * session's. Null when nothing was recorded; else what was removed, and how far each rated
   * memory's signal moved, per agent that rated it here (feedback moves the knowledge graph too).
   */
  remove(key: string): Promise<SessionRemoval | null>;
}

/** A removed session: the answer, and the moves of the signals of the memories it had rated. */
export interface SessionRemoval {
  response: SessionRemovalResponse;
  moves: { agentId: string; memoryId: string; move: number }[];
}

/** Each memory's signal move, once per agent that had rated it in the removed session; moves of none left out. */
export function ratedMoves(rated: { memory_id: string; agent_id: string }[], moved: Map<string, number>): SessionRemoval["moves"] {
  return rated.flatMap((r) => {
    const move = moved.get(r.memory_id) ?? 0;
    return Math.abs(move) > 1e-9 ? [{ agentId: r.agent_id, memoryId: r.memory_id, move }] : [];
  });
}

/** `s` as a LIKE pattern's literal part (escaped with a backslash). */
export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
