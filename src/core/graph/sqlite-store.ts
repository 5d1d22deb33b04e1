// The knowledge graph in the daemon's SQLite file (migrations/013_graph.sql). One daemon owns the
// file and writes in immediate transactions, so what it keeps in memory (each agent's gazetteer,
// whether any claim is superseded) follows its own writes and nothing else.
import type { Database, Statement } from "bun:sqlite";
import { AGGREGATE_TYPE } from "../../contracts/recall";
import { nameKey } from "./extract";
import { ExtractionRows } from "./extraction-rows";
import {
  type ClaimRow,
  type Decay,
  type DecayRule,
  type DueReview,
  type EntityRow,
  type ExtractedBatch,
  type GraphStore,
  type MentionedMemoryRow,
  namePattern,
  type PassClaim,
  type PassGraph,
  type PassRecord,
  type PassWrites,
  type ReadMemory,
  type RelationRow,
  type SourceMemory,
} from "./store";

export class SqliteGraphStore implements GraphStore {
  /** Per agent, each known name's key → its live entity (loaded at first use, kept in step with writes). */
  private readonly gazetteers = new Map<string, Map<string, string>>();
  /**
   * The memories holding a superseded claim (read once, and again after a pass that wrote claims;
   * a memory whose claims extraction replaced may linger, which the query of supersededBy sorts
   * out): a recall whose candidates hold none asks nothing.
   */
  private supersededSeqs: Set<number> | null = null;
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
      "SELECT seq, agent_id, content, type, project, structured, created_at, version, deleted_at FROM memories WHERE seq = ?",
    );
    this.selectExtracted = db.query("SELECT version FROM graph_extracted WHERE memory_seq = ?");
    this.selectAliases = db.query(
      `SELECT a.key, a.entity_id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id
       WHERE a.agent_id = ? AND e.merged_into IS NULL`,
    );
    this.insertEntity = db.query("INSERT INTO graph_entities (id, agent_id, name, type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
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

  // ---- extraction ----

  async unextracted(after: number, limit: number): Promise<{ seq: number }[]> {
    // An aggregate the graph read (a store from before aggregates were left out) is taken out as a
    // forgotten memory is: so it is at the first start after the upgrade.
    return this.db
      .query<{ seq: number }, [number, string, number]>(
        `SELECT m.seq FROM memories m LEFT JOIN graph_extracted g ON g.memory_seq = m.seq
         WHERE m.seq > ?1 AND ((m.deleted_at IS NULL AND m.type <> ?2 AND (g.version IS NULL OR g.version <> m.version))
                               OR ((m.deleted_at IS NOT NULL OR m.type = ?2) AND g.memory_seq IS NOT NULL))
         ORDER BY m.seq LIMIT ?3`,
      )
      .all(after, AGGREGATE_TYPE, limit);
  }

  async extract(seqs: number[], now: string, read: ReadMemory): Promise<ExtractedBatch> {
    const done: ExtractedBatch = { extracted: [], removed: [] };
    this.db
      .transaction(() => {
        const rows = new ExtractionRows();
        for (const seq of seqs) {
          const memory = this.selectMemory.get(seq);
          if (!memory || memory.deleted_at !== null) {
            this.clear(seq);
            this.deleteExtracted.run(seq);
            this.deleteReview.run(seq);
            if (memory) done.removed.push(memory.agent_id);
            continue;
          }
          const extracted = this.selectExtracted.get(seq);
          if (memory.type === AGGREGATE_TYPE) {
            // Never evidence: what an older daemon read from it goes, and it is not marked read.
            if (extracted) {
              this.clear(seq);
              this.deleteExtracted.run(seq);
              done.removed.push(memory.agent_id);
            }
            continue;
          }
          if (extracted?.version === memory.version) continue;
          this.clear(seq);
          const names = this.names(memory.agent_id);
          // The rows take the memory's new names into the gazetteer: the next memory knows them.
          rows.add(memory, read(memory, (k) => names.has(k)), names);
          done.extracted.push(memory.agent_id);
        }
        this.write(rows, now);
      })
      .immediate();
    return done;
  }

  private clear(seq: number): void {
    this.deleteMentions.run(seq);
    this.deleteClaims.run(seq);
  }

  private write(rows: ExtractionRows, now: string): void {
    for (const e of rows.entities) this.insertEntity.run(e.id, e.agent_id, e.name, e.type, now, now);
    for (const [id, type] of rows.upgrades) this.upgradeType.run(type, now, id);
    for (const a of rows.aliases) this.insertAlias.run(a.agent_id, a.key, a.entity_id, a.alias);
    for (const m of rows.mentions) this.insertMention.run(m.entity_id, m.memory_seq);
    for (const a of rows.aspects) this.insertAspect.run(a.entity_id, a.name);
    for (const c of rows.claims) this.insertClaim.run(c.entity_id, c.aspect, c.slot, c.value, c.confidence, c.valid_from, c.memory_seq, now);
    for (const x of rows.extracted) this.markExtracted.run(x.memory_seq, x.version, x.agent_id, now);
  }

  private names(agentId: string): Map<string, string> {
    let names = this.gazetteers.get(agentId);
    if (!names) {
      names = new Map(this.selectAliases.all(agentId).map((r) => [r.key, r.entity_id]));
      this.gazetteers.set(agentId, names);
    }
    return names;
  }

  async gazetteer(agentId: string): Promise<ReadonlyMap<string, string>> {
    return this.names(agentId);
  }

  async extractedCount(agentId: string): Promise<number> {
    return this.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM graph_extracted WHERE agent_id = ?").get(agentId)!.n;
  }

  // ---- recall and feedback ----

  async mentioning(entityIds: string[], seqs: number[]): Promise<number[]> {
    if (entityIds.length === 0 || seqs.length === 0) return [];
    return this.db
      .query<{ memory_seq: number }, [string, string]>(
        `SELECT DISTINCT memory_seq FROM graph_mentions
         WHERE entity_id IN (SELECT value FROM json_each(?)) AND memory_seq IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(entityIds), JSON.stringify(seqs))
      .map((r) => r.memory_seq);
  }

  async mentionsOf(seqs: number[]): Promise<{ memory_seq: number; entity_id: string; name: string }[]> {
    if (seqs.length === 0) return [];
    return this.db
      .query<{ memory_seq: number; entity_id: string; name: string }, [string]>(
        `SELECT g.memory_seq, g.entity_id, e.name FROM graph_mentions g JOIN graph_entities e ON e.id = g.entity_id
         WHERE g.memory_seq IN (SELECT value FROM json_each(?)) AND e.merged_into IS NULL ORDER BY e.type = 'project', e.name`,
      )
      .all(JSON.stringify(seqs));
  }

  async supersededBy(seqs: number[]): Promise<Map<number, Set<number>>> {
    const out = new Map<number, Set<number>>();
    this.supersededSeqs ??= new Set(
      this.db
        .query<{ memory_seq: number }, []>("SELECT DISTINCT memory_seq FROM graph_claims WHERE status = 'superseded'")
        .all()
        .map((r) => r.memory_seq),
    );
    const held = seqs.filter((seq) => this.supersededSeqs!.has(seq));
    if (held.length === 0) return out;
    // A slot is per project (dream.ts): a supersession across projects that a pass of an older
    // version wrote is not followed, and the next pass undoes it.
    const rows = this.db
      .query<{ old: number; newer: number }, [string]>(
        `SELECT c.memory_seq AS old, n.memory_seq AS newer FROM graph_claims c JOIN graph_claims n ON n.id = c.superseded_by
           JOIN memories mo ON mo.seq = c.memory_seq JOIN memories mn ON mn.seq = n.memory_seq
         WHERE c.memory_seq IN (SELECT value FROM json_each(?)) AND c.status = 'superseded' AND mo.project IS mn.project`,
      )
      .all(JSON.stringify(held));
    for (const r of rows) (out.get(r.old) ?? out.set(r.old, new Set()).get(r.old)!).add(r.newer);
    return out;
  }

  async seqsOf(agentId: string, ids: string[]): Promise<Map<string, number>> {
    const seqOf = this.db.query<{ seq: number }, [string, string]>("SELECT seq FROM memories WHERE id = ? AND agent_id = ?");
    const out = new Map<string, number>();
    for (const id of ids) {
      const seq = seqOf.get(id, agentId)?.seq;
      if (seq !== undefined) out.set(id, seq);
    }
    return out;
  }

  async rateAspects(_agentId: string, moves: { seq: number; move: number }[]): Promise<number> {
    const paths = this.db.query<{ entity_id: string; aspect: string }, [number, number]>(
      `SELECT g.entity_id, COALESCE(c.aspect, 'mentions') AS aspect FROM graph_mentions g
       LEFT JOIN (SELECT DISTINCT entity_id, aspect FROM graph_claims WHERE memory_seq = ?1) c ON c.entity_id = g.entity_id
       WHERE g.memory_seq = ?2`,
    );
    const ensure = this.db.query("INSERT OR IGNORE INTO graph_aspects (entity_id, name) VALUES (?, ?)");
    const shift = this.db.query("UPDATE graph_aspects SET weight = MIN(4, MAX(0.25, weight * ?)) WHERE entity_id = ? AND name = ?");
    return this.db
      .transaction(() => {
        let rated = 0;
        for (const { seq, move } of moves) {
          if (move === 0) continue;
          let moved = 0;
          for (const p of paths.all(seq, seq)) {
            ensure.run(p.entity_id, p.aspect);
            moved += shift.run(Math.exp(0.2 * move), p.entity_id, p.aspect).changes;
          }
          if (moved > 0) rated++;
        }
        return rated;
      })
      .immediate();
  }

  // ---- reviews ----

  async dueReviews(agentId: string, limit: number): Promise<DueReview[]> {
    return this.db
      .query<DueReview, [string, number]>(
        `SELECT m.seq, m.id, m.content, m.type, r.reason FROM graph_reviews r JOIN memories m ON m.seq = r.memory_seq
         WHERE r.agent_id = ? AND r.surfaced_at IS NULL AND m.deleted_at IS NULL ORDER BY r.due_at, m.seq LIMIT ?`,
      )
      .all(agentId, limit);
  }

  async markSurfaced(seqs: number[], at: string): Promise<void> {
    const mark = this.db.query("UPDATE graph_reviews SET surfaced_at = ? WHERE memory_seq = ?");
    for (const seq of seqs) mark.run(at, seq);
  }

  async agentsWithDueReviews(now: string): Promise<string[]> {
    return this.db
      .query<{ agent_id: string }, [string]>(
        `SELECT DISTINCT m.agent_id FROM memories m INDEXED BY idx_memories_review_after
         WHERE m.review_after IS NOT NULL AND m.deleted_at IS NULL AND m.review_after <= ?
           AND NOT EXISTS (SELECT 1 FROM graph_reviews r WHERE r.memory_seq = m.seq)`,
      )
      .all(now)
      .map((r) => r.agent_id);
  }

  // ---- the API's reads ----

  async entities(agentId: string, query: string | undefined, limit: number): Promise<(EntityRow & { aliases: string[] })[]> {
    const rows = this.db
      .query<EntityRow, (string | number)[]>(
        `SELECT e.id, e.name, e.type, e.pinned, (SELECT count(*) FROM graph_mentions m WHERE m.entity_id = e.id) AS mentions
         FROM graph_entities e
         WHERE e.agent_id = ? AND e.merged_into IS NULL
           ${query ? "AND EXISTS (SELECT 1 FROM graph_aliases a WHERE a.entity_id = e.id AND a.key LIKE ? ESCAPE '\\')" : ""}
         ORDER BY mentions DESC, e.name LIMIT ?`,
      )
      .all(...(query ? [agentId, namePattern(query), limit] : [agentId, limit]));
    return rows.map((r) => ({ ...r, aliases: this.aliasesOf(r.id, r.name) }));
  }

  private aliasesOf(id: string, name: string): string[] {
    return this.db
      .query<{ alias: string }, [string]>("SELECT alias FROM graph_aliases WHERE entity_id = ? ORDER BY alias")
      .all(id)
      .map((r) => r.alias)
      .filter((a) => a !== name);
  }

  async find(agentId: string, ref: string): Promise<(EntityRow & { aliases: string[] }) | null> {
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

  async aspects(entityId: string): Promise<{ name: string; weight: number }[]> {
    return this.db.query<{ name: string; weight: number }, [string]>("SELECT name, weight FROM graph_aspects WHERE entity_id = ? ORDER BY name").all(entityId);
  }

  async claims(entityId: string): Promise<ClaimRow[]> {
    return this.db
      .query<ClaimRow, [string]>(
        `SELECT c.id, c.entity_id, c.aspect, c.slot, c.value, c.confidence, c.status, c.valid_from, c.valid_until,
                c.superseded_by, m.id AS memory_id, c.recorded_at
         FROM graph_claims c JOIN memories m ON m.seq = c.memory_seq
         WHERE c.entity_id = ? ORDER BY c.aspect, c.slot, c.status, c.valid_from DESC, c.id DESC`,
      )
      .all(entityId);
  }

  async relations(entityId: string, limit: number): Promise<RelationRow[]> {
    return this.db
      .query<RelationRow, [string, string, string, number]>(
        `SELECT e.id, e.name, e.type, r.type AS relation, r.strength, r.evidence
         FROM graph_relations r JOIN graph_entities e ON e.id = CASE WHEN r.from_id = ?1 THEN r.to_id ELSE r.from_id END
         WHERE (r.from_id = ?2 OR r.to_id = ?3) AND e.merged_into IS NULL
         ORDER BY r.strength DESC, r.evidence DESC LIMIT ?4`,
      )
      .all(entityId, entityId, entityId, limit);
  }

  async memories(entityId: string, limit: number): Promise<MentionedMemoryRow[]> {
    return this.db
      .query<MentionedMemoryRow, [string, number]>(
        `SELECT m.id, m.content, m.created_at FROM graph_mentions g JOIN memories m ON m.seq = g.memory_seq
         WHERE g.entity_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at DESC, m.seq DESC LIMIT ?`,
      )
      .all(entityId, limit);
  }

  // ---- Dreaming ----

  /** One daemon owns the file, and its passes run one after another (service.ts): a pass is always alone. */
  alone<T>(_agentId: string, pass: () => Promise<T>): Promise<T | null> {
    return pass();
  }

  async passGraph(agentId: string): Promise<PassGraph> {
    return {
      entities: this.db
        .query<PassGraph["entities"][number], [string]>(
          `SELECT e.id, e.name, e.type, (SELECT count(*) FROM graph_claims c WHERE c.entity_id = e.id) AS claims
           FROM graph_entities e WHERE e.agent_id = ? AND e.merged_into IS NULL ORDER BY e.created_at, e.id`,
        )
        .all(agentId),
      aliases: this.db.query<PassGraph["aliases"][number], [string]>("SELECT entity_id, key, alias FROM graph_aliases WHERE agent_id = ?").all(agentId),
      mentions: this.db
        .query<PassGraph["mentions"][number], [string]>(
          `SELECT g.entity_id, g.memory_seq FROM graph_mentions g JOIN graph_entities e ON e.id = g.entity_id
           WHERE e.agent_id = ? AND e.merged_into IS NULL`,
        )
        .all(agentId),
    };
  }

  async passClaims(agentId: string): Promise<PassClaim[]> {
    return this.db
      .query<PassClaim, [string]>(
        `SELECT c.id, c.entity_id, m.project, c.aspect, c.slot, c.value, c.status, c.valid_from, c.valid_until, c.superseded_by
         FROM graph_claims c JOIN graph_entities e ON e.id = c.entity_id JOIN memories m ON m.seq = c.memory_seq WHERE e.agent_id = ?`,
      )
      .all(agentId);
  }

  async coOccurrences(entityIds: string[]): Promise<[string, string][]> {
    const from = this.db.query<{ to_id: string }, [string]>("SELECT to_id FROM graph_relations WHERE from_id = ? AND type = 'co-occurs'");
    return entityIds.flatMap((id) => from.all(id).map((r): [string, string] => [id, r.to_id]));
  }

  async decayedAt(agentId: string): Promise<string | null> {
    return this.db.query<{ decayed_at: string }, [string]>("SELECT decayed_at FROM graph_agents WHERE agent_id = ?").get(agentId)?.decayed_at ?? null;
  }

  async topSeq(): Promise<number> {
    return this.db.query<{ top: number | null }, []>("SELECT max(seq) AS top FROM memories").get()!.top ?? 0;
  }

  async decays(agentId: string, rule: DecayRule, after: number, upTo: number): Promise<Decay[]> {
    // Computed in SQL: only the memories whose importance moves come back to JavaScript. CROSS JOIN
    // keeps the decayed memories as the outer loop when only they are looked at.
    return this.db
      .query<Decay, [number, number, number, number, string, string, number, number]>(
        `SELECT seq, id, version, base, importance AS "from", "to" FROM (
           SELECT seq, id, version, importance, base,
                  round(base * max(?1, CASE WHEN idle > 0 THEN pow(0.5, idle / ?2) ELSE 1 END), 3) AS "to"
           FROM (SELECT m.seq, m.id, m.version, m.importance,
                        CASE WHEN d.version = m.version THEN d.base ELSE m.importance END AS base,
                        julianday(?5) - julianday(COALESCE(m.last_accessed_at, m.created_at)) - ?3 AS idle
                 FROM ${rule.scan ? "memories m LEFT JOIN graph_decay d ON d.memory_seq = m.seq" : "graph_decay d CROSS JOIN memories m ON m.seq = d.memory_seq"}
                 WHERE m.agent_id = ?6 AND m.deleted_at IS NULL AND m.pinned = 0 AND m.seq > ?7 AND m.seq <= ?8))
         WHERE abs("to" - importance) >= ?4 ${rule.scan ? "" : 'AND "to" > importance'}`,
      )
      .all(rule.floor, rule.halfLifeDays, rule.afterDays, rule.step, rule.now, agentId, after, upTo);
  }

  async dueForReview(agentId: string, now: string): Promise<{ seq: number; id: string; dueAt: string }[]> {
    return this.db
      .query<{ seq: number; id: string; dueAt: string }, [string, string]>(
        `SELECT m.seq, m.id, m.review_after AS dueAt FROM memories m INDEXED BY idx_memories_review_after
         WHERE m.agent_id = ? AND m.deleted_at IS NULL AND m.review_after IS NOT NULL AND m.review_after <= ?
           AND NOT EXISTS (SELECT 1 FROM graph_reviews r WHERE r.memory_seq = m.seq)`,
      )
      .all(agentId, now);
  }

  async applyPass(agentId: string, w: PassWrites, record: PassRecord): Promise<number> {
    const db = this.db;
    const now = record.startedAt;
    const id = db
      .transaction(() => {
        for (const { from, into, type } of w.merges) {
          db.run("UPDATE graph_entities SET merged_into = ?, updated_at = ? WHERE id = ?", [into, now, from]);
          db.run("UPDATE graph_entities SET type = ?, updated_at = ? WHERE id = ?", [type, now, into]);
          db.run("INSERT OR IGNORE INTO graph_aliases (agent_id, key, entity_id, alias) SELECT agent_id, key, ?, alias FROM graph_aliases WHERE entity_id = ?", [into, from]);
          db.run("DELETE FROM graph_aliases WHERE entity_id = ?", [from]);
          db.run("INSERT OR IGNORE INTO graph_mentions (entity_id, memory_seq) SELECT ?, memory_seq FROM graph_mentions WHERE entity_id = ?", [into, from]);
          db.run("DELETE FROM graph_mentions WHERE entity_id = ?", [from]);
          db.run("UPDATE graph_claims SET entity_id = ? WHERE entity_id = ?", [into, from]);
          db.run("INSERT OR IGNORE INTO graph_aspects (entity_id, name, weight) SELECT ?, name, weight FROM graph_aspects WHERE entity_id = ?", [into, from]);
          db.run("DELETE FROM graph_aspects WHERE entity_id = ?", [from]);
          db.run("DELETE FROM graph_relations WHERE from_id = ? OR to_id = ?", [from, from]);
        }
        for (const n of w.names) {
          db.run("UPDATE graph_entities SET name = ?, updated_at = ? WHERE id = ?", [n.name, now, n.entity]);
          if (n.drop !== null) db.run("DELETE FROM graph_aliases WHERE entity_id = ? AND key = ?", [n.entity, n.drop]);
        }
        for (const r of w.renames) {
          db.run("UPDATE graph_claims SET aspect = ?, slot = ? WHERE entity_id = ? AND aspect = ? AND slot = ?", [r.into.aspect, r.into.slot, r.entity, r.from.aspect, r.from.slot]);
          db.run("INSERT OR IGNORE INTO graph_aspects (entity_id, name) VALUES (?, ?)", [r.entity, r.into.aspect]);
        }
        const setClaim = db.query("UPDATE graph_claims SET status = ?, valid_until = ?, superseded_by = ? WHERE id = ?");
        for (const c of w.claims) setClaim.run(c.status, c.validUntil, c.supersededBy, c.id);
        const relate = db.query(
          `INSERT INTO graph_relations (from_id, to_id, type, strength, evidence, updated_at) VALUES (?, ?, 'co-occurs', ?, ?, ?)
           ON CONFLICT(from_id, to_id, type) DO UPDATE SET strength = excluded.strength, evidence = excluded.evidence, updated_at = excluded.updated_at
           WHERE strength <> excluded.strength OR evidence <> excluded.evidence`,
        );
        for (const r of w.relations) relate.run(r.a, r.b, r.strength, r.evidence, now);
        const unrelate = db.query("DELETE FROM graph_relations WHERE from_id = ? AND to_id = ? AND type = 'co-occurs'");
        for (const [a, b] of w.staleRelations) unrelate.run(a, b);
        const review = db.query("INSERT OR IGNORE INTO graph_reviews (memory_seq, agent_id, due_at, reason, queued_at) VALUES (?, ?, ?, ?, ?)");
        for (const r of w.reviews) review.run(r.seq, agentId, r.dueAt, r.reason, now);
        // Derived upkeep, not an edit: the memory's version and history stay as they are.
        const decay = db.query("UPDATE memories SET importance = ? WHERE seq = ? AND version = ?");
        const base = db.query(
          `INSERT INTO graph_decay (memory_seq, version, base, decayed_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(memory_seq) DO UPDATE SET version = excluded.version, base = excluded.base, decayed_at = excluded.decayed_at`,
        );
        for (const d of w.decays) if (decay.run(d.to, d.seq, d.version).changes > 0) base.run(d.seq, d.version, d.base, now);
        if (w.decayScanned) {
          db.run("INSERT INTO graph_agents (agent_id, decayed_at) VALUES (?, ?) ON CONFLICT(agent_id) DO UPDATE SET decayed_at = excluded.decayed_at", [agentId, now]);
        }
        for (const e of w.prunes) {
          db.run("DELETE FROM graph_relations WHERE from_id = ? OR to_id = ?", [e, e]);
          db.run("DELETE FROM graph_aliases WHERE entity_id = ?", [e]);
          db.run("DELETE FROM graph_aspects WHERE entity_id = ?", [e]);
          db.run("DELETE FROM graph_entities WHERE id = ?", [e]);
        }
        return Number(
          db
            .query("INSERT INTO graph_dreams (agent_id, trigger, started_at, finished_at, summary) VALUES (?, ?, ?, ?, ?)")
            .run(agentId, record.trigger, record.startedAt, record.finishedAt, record.summary).lastInsertRowid,
        );
      })
      .immediate();
    // The pass moved names between entities, and may have superseded claims or reinstated them.
    this.gazetteers.delete(agentId);
    if (w.claims.length > 0) this.supersededSeqs = null;
    return id;
  }

  async audit(dreamId: number, rows: { action: string; detail: string }[]): Promise<void> {
    const insert = this.db.query("INSERT INTO graph_audit (dream_id, action, detail) VALUES (?, ?, ?)");
    this.db.transaction(() => {
      for (const r of rows) insert.run(dreamId, r.action, r.detail);
    })();
  }
}
