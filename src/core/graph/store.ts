// The graph's tables (migrations/013_graph.sql): what extraction writes for a memory, the
// gazetteer of the names each agent's graph knows, and the reads the API answers from.
import type { Database, Statement } from "bun:sqlite";
import { nameKey, type Extraction } from "./extract";

/** A memory as extraction reads it. */
export interface SourceMemory {
  seq: number;
  agent_id: string;
  content: string;
  project: string | null;
  structured: string | null;
  created_at: string;
  version: number;
  deleted_at: string | null;
}

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  pinned: number;
  mentions: number;
}

export interface ClaimRow {
  id: number;
  entity_id: string;
  aspect: string;
  slot: string;
  value: string;
  confidence: number;
  status: "active" | "superseded";
  valid_from: string;
  valid_until: string | null;
  superseded_by: number | null;
  memory_id: string;
  recorded_at: string;
}

export interface RelationRow {
  id: string;
  name: string;
  type: string;
  relation: string;
  strength: number;
  evidence: number;
}

export interface MentionedMemoryRow {
  id: string;
  content: string;
  created_at: string;
}

const newEntityId = () => `ent_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;

export class GraphStore {
  /** Per agent, each known name's key → its live entity (loaded at first use, kept in step with writes). */
  private readonly gazetteers = new Map<string, Map<string, string>>();
  private readonly selectMemory: Statement<SourceMemory, [number]>;
  private readonly selectExtracted: Statement<{ version: number }, [number]>;
  private readonly selectAliases: Statement<{ key: string; entity_id: string }, [string]>;
  private readonly insertEntity: Statement<unknown, [string, string, string, string, string, string]>;
  private readonly upgradeType: Statement<unknown, [string, string, string]>;
  private readonly insertAlias: Statement<unknown, [string, string, string, string]>;
  private readonly insertMention: Statement<unknown, [string, number]>;
  private readonly insertAspect: Statement<unknown, [string, string]>;
  private readonly insertClaim: Statement<unknown, [string, string, string, string, number, string, number, string]>;
  private readonly markExtracted: Statement<unknown, [number, number, string, string]>;
  private readonly deleteMentions: Statement<unknown, [number]>;
  private readonly deleteClaims: Statement<unknown, [number]>;
  private readonly deleteExtracted: Statement<unknown, [number]>;
  private readonly deleteReview: Statement<unknown, [number]>;

  constructor(private readonly db: Database) {
    this.selectMemory = db.query(
      "SELECT seq, agent_id, content, project, structured, created_at, version, deleted_at FROM memories WHERE seq = ?",
    );
    this.selectExtracted = db.query("SELECT version FROM graph_extracted WHERE memory_seq = ?");
    this.selectAliases = db.query(
      `SELECT a.key, a.entity_id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id
       WHERE a.agent_id = ? AND e.merged_into IS NULL`,
    );
    this.insertEntity = db.query("INSERT INTO graph_entities (id, agent_id, name, type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
    // A guessed type gives way to one the evidence states (a structured payload's, a project's).
    this.upgradeType = db.query("UPDATE graph_entities SET type = ?, updated_at = ? WHERE id = ? AND type = 'thing'");
    this.insertAlias = db.query("INSERT OR IGNORE INTO graph_aliases (agent_id, key, entity_id, alias) VALUES (?, ?, ?, ?)");
    this.insertMention = db.query("INSERT OR IGNORE INTO graph_mentions (entity_id, memory_seq) VALUES (?, ?)");
    this.insertAspect = db.query("INSERT OR IGNORE INTO graph_aspects (entity_id, name) VALUES (?, ?)");
    this.insertClaim = db.query(
      `INSERT INTO graph_claims (entity_id, aspect, slot, value, confidence, valid_from, memory_seq, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.markExtracted = db.query(
      `INSERT INTO graph_extracted (memory_seq, version, agent_id, extracted_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(memory_seq) DO UPDATE SET version = excluded.version, extracted_at = excluded.extracted_at`,
    );
    this.deleteMentions = db.query("DELETE FROM graph_mentions WHERE memory_seq = ?");
    this.deleteClaims = db.query("DELETE FROM graph_claims WHERE memory_seq = ?");
    this.deleteExtracted = db.query("DELETE FROM graph_extracted WHERE memory_seq = ?");
    this.deleteReview = db.query("DELETE FROM graph_reviews WHERE memory_seq = ? AND surfaced_at IS NULL");
  }

  memory(seq: number): SourceMemory | null {
    return this.selectMemory.get(seq);
  }

  /** Whether extraction has read this version of the memory. */
  extractedVersion(seq: number): number | null {
    return this.selectExtracted.get(seq)?.version ?? null;
  }

  /** The agent's gazetteer: each known name's key → its live entity. */
  gazetteer(agentId: string): Map<string, string> {
    let names = this.gazetteers.get(agentId);
    if (!names) {
      names = new Map(this.selectAliases.all(agentId).map((r) => [r.key, r.entity_id]));
      this.gazetteers.set(agentId, names);
    }
    return names;
  }

  /** Dreaming moved names between entities: the agent's gazetteer is read again at its next use. */
  forgetGazetteer(agentId: string): void {
    this.gazetteers.delete(agentId);
  }

  /** Replaces what the graph holds from `memory` with `extraction`; call inside a transaction. */
  write(memory: SourceMemory, extraction: Extraction, now: string): void {
    this.clear(memory.seq);
    const names = this.gazetteer(memory.agent_id);
    const ids = new Map<string, string>();
    for (const e of extraction.entities) {
      let id = names.get(e.key) ?? e.aliases.map((a) => names.get(nameKey(a))).find((x) => x !== undefined);
      if (!id) {
        id = newEntityId();
        this.insertEntity.run(id, memory.agent_id, e.name, e.type, now, now);
      } else if (e.type !== "thing") {
        this.upgradeType.run(e.type, now, id);
      }
      for (const [key, alias] of [[e.key, e.name] as const, ...e.aliases.map((a) => [nameKey(a), a] as const)]) {
        if (!key || names.has(key)) continue;
        this.insertAlias.run(memory.agent_id, key, id, alias);
        names.set(key, id);
      }
      ids.set(e.key, id);
      this.insertMention.run(id, memory.seq);
    }
    for (const c of extraction.claims) {
      const id = ids.get(c.entity);
      if (!id) continue;
      this.insertAspect.run(id, c.aspect);
      this.insertClaim.run(id, c.aspect, c.slot, c.value, c.confidence, memory.created_at, memory.seq, now);
    }
    this.markExtracted.run(memory.seq, memory.version, memory.agent_id, now);
  }

  /** Takes what the graph holds from a memory out (it was forgotten): its mentions, claims and queued review. */
  remove(seq: number): void {
    this.clear(seq);
    this.deleteExtracted.run(seq);
    this.deleteReview.run(seq);
  }

  private clear(seq: number): void {
    this.deleteMentions.run(seq);
    this.deleteClaims.run(seq);
  }

  /** The agent's live entities, those whose names contain `query` when one is given, most mentioned first. */
  entities(agentId: string, query: string | undefined, limit: number): (EntityRow & { aliases: string[] })[] {
    const like = query ? `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const rows = this.db
      .query<EntityRow, (string | number)[]>(
        `SELECT e.id, e.name, e.type, e.pinned, (SELECT count(*) FROM graph_mentions m WHERE m.entity_id = e.id) AS mentions
         FROM graph_entities e
         WHERE e.agent_id = ? AND e.merged_into IS NULL
           ${like ? "AND EXISTS (SELECT 1 FROM graph_aliases a WHERE a.entity_id = e.id AND a.key LIKE ? ESCAPE '\\')" : ""}
         ORDER BY mentions DESC, e.name LIMIT ?`,
      )
      .all(...(like ? [agentId, like.toLowerCase(), limit] : [agentId, limit]));
    return rows.map((r) => ({ ...r, aliases: this.aliasesOf(r.id, r.name) }));
  }

  private aliasesOf(id: string, name: string): string[] {
    return this.db
      .query<{ alias: string }, [string]>("SELECT alias FROM graph_aliases WHERE entity_id = ? ORDER BY alias")
      .all(id)
      .map((r) => r.alias)
      .filter((a) => a !== name);
  }

  /** The agent's entity with this id or name (a merged one answers as the entity it was merged into). */
  find(agentId: string, ref: string): (EntityRow & { aliases: string[] }) | null {
    let id: string | undefined = this.db
      .query<{ id: string }, [string, string]>("SELECT id FROM graph_entities WHERE id = ? AND agent_id = ?")
      .get(ref, agentId)?.id;
    id ??= this.db
      .query<{ entity_id: string }, [string, string]>(
        `SELECT a.entity_id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id
         WHERE a.agent_id = ? AND a.key = ? ORDER BY e.merged_into IS NOT NULL LIMIT 1`,
      )
      .get(agentId, nameKey(ref))?.entity_id;
    for (let hops = 0; id && hops < 64; hops++) {
      const row = this.db
        .query<EntityRow & { merged_into: string | null }, [string]>(
          `SELECT id, name, type, pinned, merged_into, (SELECT count(*) FROM graph_mentions m WHERE m.entity_id = e.id) AS mentions
           FROM graph_entities e WHERE id = ?`,
        )
        .get(id);
      if (!row) return null;
      if (row.merged_into === null) {
        const { merged_into: _, ...entity } = row;
        return { ...entity, aliases: this.aliasesOf(row.id, row.name) };
      }
      id = row.merged_into;
    }
    return null;
  }

  /** Each of `seqs`' entities (live ones, by id and name). */
  mentionsOf(seqs: number[]): { memory_seq: number; entity_id: string; name: string }[] {
    if (seqs.length === 0) return [];
    return this.db
      .query<{ memory_seq: number; entity_id: string; name: string }, [string]>(
        `SELECT g.memory_seq, g.entity_id, e.name FROM graph_mentions g JOIN graph_entities e ON e.id = g.entity_id
         WHERE g.memory_seq IN (SELECT value FROM json_each(?)) AND e.merged_into IS NULL ORDER BY e.type = 'project', e.name`,
      )
      .all(JSON.stringify(seqs));
  }

  /** How many of the agent's memories extraction has read. */
  extractedCount(agentId: string): number {
    return this.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM graph_extracted WHERE agent_id = ?").get(agentId)!.n;
  }

  anySuperseded(): boolean {
    return this.db.query("SELECT 1 FROM graph_claims WHERE status = 'superseded' LIMIT 1").get() !== null;
  }

  /** For each of `seqs` holding a superseded claim, the memories whose newer claims superseded it. */
  supersededBy(seqs: number[]): Map<number, Set<number>> {
    const out = new Map<number, Set<number>>();
    if (seqs.length === 0) return out;
    const rows = this.db
      .query<{ old: number; newer: number }, [string]>(
        `SELECT c.memory_seq AS old, n.memory_seq AS newer FROM graph_claims c JOIN graph_claims n ON n.id = c.superseded_by
         WHERE c.memory_seq IN (SELECT value FROM json_each(?)) AND c.status = 'superseded'`,
      )
      .all(JSON.stringify(seqs));
    for (const r of rows) (out.get(r.old) ?? out.set(r.old, new Set()).get(r.old)!).add(r.newer);
    return out;
  }

  /** Which live entities each of `seqs` mentions, as (memory, entity) pairs. */
  mentionPairs(seqs: number[]): { memory_seq: number; entity_id: string }[] {
    if (seqs.length === 0) return [];
    return this.db
      .query<{ memory_seq: number; entity_id: string }, [string]>(
        "SELECT memory_seq, entity_id FROM graph_mentions WHERE memory_seq IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(seqs));
  }

  /**
   * A move of memory `seq`'s feedback signal moves the weight of each aspect on its entity paths: for each entity it
   * mentions, the aspects of the claims it makes about it, or the entity's `mentions` aspect when it
   * makes none. Weights move by e^(0.2·move), within [0.25, 4]. How many weights moved.
   */
  rateAspects(seq: number, move: number): number {
    if (move === 0) return 0;
    const paths = this.db
      .query<{ entity_id: string; aspect: string }, [number, number]>(
        `SELECT g.entity_id, COALESCE(c.aspect, 'mentions') AS aspect FROM graph_mentions g
         LEFT JOIN (SELECT DISTINCT entity_id, aspect FROM graph_claims WHERE memory_seq = ?1) c ON c.entity_id = g.entity_id
         WHERE g.memory_seq = ?2`,
      )
      .all(seq, seq);
    const ensure = this.db.query("INSERT OR IGNORE INTO graph_aspects (entity_id, name) VALUES (?, ?)");
    const shift = this.db.query("UPDATE graph_aspects SET weight = MIN(4, MAX(0.25, weight * ?)) WHERE entity_id = ? AND name = ?");
    let moved = 0;
    for (const p of paths) {
      ensure.run(p.entity_id, p.aspect);
      moved += shift.run(Math.exp(0.2 * move), p.entity_id, p.aspect).changes;
    }
    return moved;
  }

  /** The agent's queued reviews no session start has listed yet, oldest due first. */
  dueReviews(agentId: string, limit: number): { seq: number; id: string; content: string; type: string; reason: string }[] {
    return this.db
      .query<{ seq: number; id: string; content: string; type: string; reason: string }, [string, number]>(
        `SELECT m.seq, m.id, m.content, m.type, r.reason FROM graph_reviews r JOIN memories m ON m.seq = r.memory_seq
         WHERE r.agent_id = ? AND r.surfaced_at IS NULL AND m.deleted_at IS NULL ORDER BY r.due_at, m.seq LIMIT ?`,
      )
      .all(agentId, limit);
  }

  markSurfaced(seqs: number[], at: string): void {
    const mark = this.db.query("UPDATE graph_reviews SET surfaced_at = ? WHERE memory_seq = ?");
    for (const seq of seqs) mark.run(at, seq);
  }

  /** Agents with a memory whose reviewAfter has passed and that no pass has queued yet. */
  agentsWithDueReviews(now: string): string[] {
    return this.db
      .query<{ agent_id: string }, [string]>(
        `SELECT DISTINCT m.agent_id FROM memories m INDEXED BY idx_memories_review_after
         WHERE m.review_after IS NOT NULL AND m.deleted_at IS NULL AND m.review_after <= ?
           AND NOT EXISTS (SELECT 1 FROM graph_reviews r WHERE r.memory_seq = m.seq)`,
      )
      .all(now)
      .map((r) => r.agent_id);
  }

  aspects(entityId: string): { name: string; weight: number }[] {
    return this.db.query<{ name: string; weight: number }, [string]>("SELECT name, weight FROM graph_aspects WHERE entity_id = ? ORDER BY name").all(entityId);
  }

  claims(entityId: string): ClaimRow[] {
    return this.db
      .query<ClaimRow, [string]>(
        `SELECT c.id, c.entity_id, c.aspect, c.slot, c.value, c.confidence, c.status, c.valid_from, c.valid_until,
                c.superseded_by, m.id AS memory_id, c.recorded_at
         FROM graph_claims c JOIN memories m ON m.seq = c.memory_seq
         WHERE c.entity_id = ? ORDER BY c.aspect, c.slot, c.status, c.valid_from DESC, c.id DESC`,
      )
      .all(entityId);
  }

  relations(entityId: string, limit: number): RelationRow[] {
    return this.db
      .query<RelationRow, [string, string, string, number]>(
        `SELECT e.id, e.name, e.type, r.type AS relation, r.strength, r.evidence
         FROM graph_relations r JOIN graph_entities e ON e.id = CASE WHEN r.from_id = ?1 THEN r.to_id ELSE r.from_id END
         WHERE (r.from_id = ?2 OR r.to_id = ?3) AND e.merged_into IS NULL
         ORDER BY r.strength DESC, r.evidence DESC LIMIT ?4`,
      )
      .all(entityId, entityId, entityId, limit);
  }

  memories(entityId: string, limit: number): MentionedMemoryRow[] {
    return this.db
      .query<MentionedMemoryRow, [string, number]>(
        `SELECT m.id, m.content, m.created_at FROM graph_mentions g JOIN memories m ON m.seq = g.memory_seq
         WHERE g.entity_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at DESC, m.seq DESC LIMIT ?`,
      )
      .all(entityId, limit);
  }
}
