// The knowledge graph in a PostgreSQL store shared by several daemons (migrations/postgres/001_schema.sql).
// What sharing needs:
// - An agent's graph writes (a batch of extraction, a pass's writes, feedback's weights) each run in
//   a transaction that first takes a lock on the agent (LOCK_GRAPH_WRITES). Under it a batch reads
//   which version of each memory extraction read, so two daemons reading one memory write it once,
//   and resolves the names it found against the store, not against the daemon's gazetteer, so two
//   daemons naming one new entity make it once; and no mention lands on an entity a pass merges or
//   prunes meanwhile.
// - A pass holds a session-level lock on the agent (LOCK_DREAM) on a connection of its own for as
//   long as it runs: another daemon's pass for the agent is refused meanwhile. (A pass plans for
//   seconds, an llm's answer among them; no transaction stays open that long.)
// - Each daemon's gazetteer (for extraction's known names and recall's) is a cache: a batch that
//   finds a name answered otherwise in the store (another daemon named or merged it) drops it, to be
//   read again at its next use; one that finds a memory another daemon read takes in the names of
//   what that memory mentions.
// Each of a batch's writes to a table is one statement, its rows as arrays.
import { LOCK_SPACE } from "../advisory-locks";
import { AGGREGATE_TYPE } from "../../contracts/recall";
import { nameKey, type Extraction } from "./extract";
import { ExtractionRows, namesOf } from "./extraction-rows";
import { parameters } from "../sql-parameters";
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

type Sql = Bun.SQL;

const LOCK_GRAPH_WRITES = LOCK_SPACE.graphWrites;
const LOCK_DREAM = LOCK_SPACE.dream;
/** Told an agent's id when a pass for it commits (a pass moves names between entities). */
const GRAPH_PASS_CHANNEL = "signet_graph_passes";

/** An entity with its mentions counted and its aliases (but its own name), in SQLite's byte order. */
const ENTITY_COLUMNS = `e.id, e.name, e.type, e.pinned, (SELECT count(*)::int FROM graph_mentions m WHERE m.entity_id = e.id) AS mentions,
  ARRAY(SELECT a.alias FROM graph_aliases a WHERE a.entity_id = e.id AND a.alias <> e.name ORDER BY a.alias COLLATE "C") AS aliases`;

/** What a batch of extraction tells this daemon's gazetteers. */
interface Learned {
  /** The names of what the memories another daemon read mention. */
  seen: { agent_id: string; key: string; entity_id: string }[];
  /** The names the batch gave entities. */
  aliases: { agent_id: string; key: string; entity_id: string }[];
  /** Agents whose gazetteer here answered a name otherwise than the store. */
  stale: Set<string>;
}

const column = <T, K extends keyof T>(rows: T[], key: K): T[K][] => rows.map((r) => r[key]);

export class PostgresGraphStore implements GraphStore {
  /** Per agent, each known name's key → its live entity, as this daemon last read or wrote it. */
  private readonly gazetteers = new Map<string, Map<string, string>>();

  constructor(private readonly sql: Sql) {}

  // ---- extraction ----

  unextracted(after: number, limit: number): Promise<{ seq: number }[]> {
    // An aggregate the graph read (a store from before aggregates were left out) is taken out as a
    // forgotten memory is: so it is at the first start after the upgrade.
    return this.sql`
      SELECT m.seq FROM memories m LEFT JOIN graph_extracted g ON g.memory_seq = m.seq
      WHERE m.seq > ${after} AND ((m.deleted_at IS NULL AND m.type <> ${AGGREGATE_TYPE} AND (g.version IS NULL OR g.version <> m.version))
                                  OR ((m.deleted_at IS NOT NULL OR m.type = ${AGGREGATE_TYPE}) AND g.memory_seq IS NOT NULL))
      ORDER BY m.seq LIMIT ${limit}`;
  }

  async leftUnextracted(writtenBefore: string): Promise<number[]> {
    const rows = await this.sql<{ seq: number }[]>`
      SELECT m.seq FROM memories m LEFT JOIN graph_extracted g ON g.memory_seq = m.seq
      WHERE m.updated_at < ${writtenBefore}
        AND ((m.deleted_at IS NULL AND m.type <> ${AGGREGATE_TYPE} AND (g.version IS NULL OR g.version <> m.version))
             OR ((m.deleted_at IS NOT NULL OR m.type = ${AGGREGATE_TYPE}) AND g.memory_seq IS NOT NULL))
      ORDER BY m.seq LIMIT 1000`;
    return rows.map((r) => r.seq);
  }

  async extract(seqs: number[], now: string, read: ReadMemory): Promise<ExtractedBatch> {
    const done: ExtractedBatch = { extracted: [], removed: [] };
    const learned = await this.sql.begin(async (tx): Promise<Learned> => {
      // In the order of the keys: two batches that each lock several agents never wait on each other in a circle.
      await tx`
        SELECT pg_advisory_xact_lock(${LOCK_GRAPH_WRITES}, h)
        FROM (SELECT DISTINCT hashtext(agent_id) AS h FROM memories WHERE seq = ANY(${seqs}::int[])) agents ORDER BY h`;
      const stored: (SourceMemory & { extracted: number | null })[] = await tx`
        SELECT m.seq, m.agent_id, m.content, m.type, m.project, m.structured, m.created_at, m.version, m.deleted_at, g.version AS extracted
        FROM memories m LEFT JOIN graph_extracted g ON g.memory_seq = m.seq WHERE m.seq = ANY(${seqs}::int[])`;
      const bySeq = new Map(stored.map((m) => [m.seq, m]));
      const gone: number[] = [];
      /** Aggregates an older daemon read: never evidence, what the graph holds from them goes. */
      const aggregates: number[] = [];
      const readElsewhere: number[] = [];
      const reads: { memory: SourceMemory; extraction: Extraction }[] = [];
      // Per agent, the keys the batch's earlier memories named: known to the next, as they would be one batch later.
      const named = new Map<string, Set<string>>();
      for (const seq of seqs) {
        const memory = bySeq.get(seq);
        if (!memory || memory.deleted_at !== null) {
          gone.push(seq);
          if (memory) done.removed.push(memory.agent_id);
          continue;
        }
        if (memory.type === AGGREGATE_TYPE) {
          if (memory.extracted !== null) {
            aggregates.push(seq);
            done.removed.push(memory.agent_id);
          }
          continue;
        }
        if (memory.extracted === memory.version) {
          if (this.gazetteers.has(memory.agent_id)) readElsewhere.push(seq);
          continue;
        }
        const known = await this.names(memory.agent_id, tx);
        const earlier = named.get(memory.agent_id) ?? named.set(memory.agent_id, new Set()).get(memory.agent_id)!;
        const extraction = read(memory, (k) => known.has(k) || earlier.has(k));
        for (const e of extraction.entities) for (const [key] of namesOf(e)) earlier.add(key);
        reads.push({ memory, extraction });
        done.extracted.push(memory.agent_id);
      }
      const unread = [...gone, ...aggregates];
      const cleared = [...unread, ...reads.map((r) => r.memory.seq)];
      if (cleared.length > 0) {
        await tx`
          WITH mentions AS (DELETE FROM graph_mentions WHERE memory_seq = ANY(${cleared}::int[])),
          claims AS (DELETE FROM graph_claims WHERE memory_seq = ANY(${cleared}::int[])),
          extracted AS (DELETE FROM graph_extracted WHERE memory_seq = ANY(${unread}::int[]))
          DELETE FROM graph_reviews WHERE memory_seq = ANY(${gone}::int[]) AND surfaced_at IS NULL`;
      }
      const seen: Learned["seen"] = readElsewhere.length === 0 ? [] : await tx`
        SELECT DISTINCT a.agent_id, a.key, a.entity_id FROM graph_mentions g
        JOIN graph_entities e ON e.id = g.entity_id AND e.merged_into IS NULL JOIN graph_aliases a ON a.entity_id = e.id
        WHERE g.memory_seq = ANY(${readElsewhere}::int[])`;
      return { seen, ...(reads.length > 0 ? await this.writeBatch(tx, reads, now) : { aliases: [], stale: new Set() }) };
    });
    this.learn(learned);
    return done;
  }

  /**
   * Resolves the batch's names against the store (its lock held) and writes its rows in one
   * statement; the names it gave entities, and the agents whose gazetteer here said otherwise than the store.
   */
  private async writeBatch(tx: Sql, reads: { memory: SourceMemory; extraction: Extraction }[], now: string): Promise<Pick<Learned, "aliases" | "stale">> {
    const asked = reads.flatMap(({ memory, extraction }) => extraction.entities.flatMap((e) => namesOf(e).map(([key]) => ({ agent_id: memory.agent_id, key }))));
    const found: { agent_id: string; key: string; entity_id: string }[] = await tx`
      SELECT a.agent_id, a.key, a.entity_id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id
      WHERE e.merged_into IS NULL
        AND (a.agent_id, a.key) IN (SELECT * FROM unnest(${column(asked, "agent_id")}::text[], ${column(asked, "key")}::text[]))`;
    const names = new Map<string, Map<string, string>>();
    for (const { memory } of reads) if (!names.has(memory.agent_id)) names.set(memory.agent_id, new Map());
    for (const f of found) names.get(f.agent_id)!.set(f.key, f.entity_id);
    const stale = new Set<string>();
    for (const a of asked) {
      const cached = this.gazetteers.get(a.agent_id);
      if (cached && cached.get(a.key) !== names.get(a.agent_id)!.get(a.key)) stale.add(a.agent_id);
    }
    const rows = new ExtractionRows();
    for (const { memory, extraction } of reads) rows.add(memory, extraction, names.get(memory.agent_id)!);
    const { entities, aliases, mentions, aspects, claims, extracted } = rows;
    await tx`
      WITH entities AS (
        INSERT INTO graph_entities (id, agent_id, name, type, created_at, updated_at)
        SELECT id, agent_id, name, type, ${now}, ${now}
        FROM unnest(${column(entities, "id")}::text[], ${column(entities, "agent_id")}::text[], ${column(entities, "name")}::text[], ${column(entities, "type")}::text[])
          AS e(id, agent_id, name, type)),
      upgraded AS (
        UPDATE graph_entities g SET type = u.type, updated_at = ${now}
        FROM unnest(${[...rows.upgrades.keys()]}::text[], ${[...rows.upgrades.values()]}::text[]) AS u(id, type)
        WHERE g.id = u.id AND g.type = 'thing'),
      aliases AS (
        INSERT INTO graph_aliases (agent_id, key, entity_id, alias)
        SELECT * FROM unnest(${column(aliases, "agent_id")}::text[], ${column(aliases, "key")}::text[], ${column(aliases, "entity_id")}::text[], ${column(aliases, "alias")}::text[])
        ON CONFLICT DO NOTHING),
      mentions AS (
        INSERT INTO graph_mentions (entity_id, memory_seq)
        SELECT * FROM unnest(${column(mentions, "entity_id")}::text[], ${column(mentions, "memory_seq")}::int[]) ON CONFLICT DO NOTHING),
      aspects AS (
        INSERT INTO graph_aspects (entity_id, name)
        SELECT * FROM unnest(${column(aspects, "entity_id")}::text[], ${column(aspects, "name")}::text[]) ON CONFLICT DO NOTHING),
      claims AS (
        INSERT INTO graph_claims (entity_id, aspect, slot, value, confidence, valid_from, memory_seq, recorded_at)
        SELECT entity_id, aspect, slot, value, confidence, valid_from, memory_seq, ${now}
        FROM unnest(${column(claims, "entity_id")}::text[], ${column(claims, "aspect")}::text[], ${column(claims, "slot")}::text[], ${column(claims, "value")}::text[],
                    ${column(claims, "confidence")}::float8[], ${column(claims, "valid_from")}::text[], ${column(claims, "memory_seq")}::int[])
          WITH ORDINALITY AS c(entity_id, aspect, slot, value, confidence, valid_from, memory_seq, n)
        ORDER BY n)
      INSERT INTO graph_extracted (memory_seq, version, agent_id, extracted_at)
      SELECT memory_seq, version, agent_id, ${now}
      FROM unnest(${column(extracted, "memory_seq")}::int[], ${column(extracted, "version")}::int[], ${column(extracted, "agent_id")}::text[]) AS x(memory_seq, version, agent_id)
      ON CONFLICT (memory_seq) DO UPDATE SET version = excluded.version, extracted_at = excluded.extracted_at`;
    return { aliases, stale };
  }

  /** After a batch committed: each agent's gazetteer learns the names it met, or is dropped when the store said otherwise. */
  private learn({ seen, aliases, stale }: Learned): void {
    for (const agentId of stale) this.gazetteers.delete(agentId);
    for (const a of [...seen, ...aliases]) this.gazetteers.get(a.agent_id)?.set(a.key, a.entity_id);
  }

  private async names(agentId: string, sql: Sql): Promise<Map<string, string>> {
    let names = this.gazetteers.get(agentId);
    if (!names) {
      const rows: { key: string; entity_id: string }[] = await sql`
        SELECT a.key, a.entity_id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id
        WHERE a.agent_id = ${agentId} AND e.merged_into IS NULL`;
      names = new Map(rows.map((r) => [r.key, r.entity_id]));
      this.gazetteers.set(agentId, names);
    }
    return names;
  }

  async follow(): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen(GRAPH_PASS_CHANNEL, (agentId) => this.gazetteers.delete(agentId));
    return () => subscription.unlisten();
  }

  gazetteer(agentId: string): Promise<ReadonlyMap<string, string>> {
    return this.names(agentId, this.sql);
  }

  async extractedCount(agentId: string): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM graph_extracted WHERE agent_id = ${agentId}`;
    return row!.n;
  }

  // ---- recall and feedback ----

  async mentioning(entityIds: string[], seqs: number[]): Promise<number[]> {
    if (entityIds.length === 0 || seqs.length === 0) return [];
    const rows: { memory_seq: number }[] = await this.sql`SELECT DISTINCT memory_seq FROM graph_mentions
      WHERE entity_id = ANY(${entityIds}::text[]) AND memory_seq = ANY(${seqs}::int[])`;
    return rows.map((r) => r.memory_seq);
  }

  async mentionsOf(seqs: number[]): Promise<{ memory_seq: number; entity_id: string; name: string }[]> {
    if (seqs.length === 0) return [];
    return this.sql`
      SELECT g.memory_seq, g.entity_id, e.name FROM graph_mentions g JOIN graph_entities e ON e.id = g.entity_id
      WHERE g.memory_seq = ANY(${seqs}::int[]) AND e.merged_into IS NULL ORDER BY e.type = 'project', e.name COLLATE "C"`;
  }

  async supersededBy(seqs: number[]): Promise<Map<number, Set<number>>> {
    const out = new Map<number, Set<number>>();
    if (seqs.length === 0) return out;
    // Asked every time: another daemon's pass may have superseded a claim since. A slot is per project
    // (dream.ts): a supersession across projects that a pass of an older version wrote is not
    // followed, and the next pass undoes it.
    const rows: { old: number; newer: number }[] = await this.sql`
      SELECT c.memory_seq AS old, n.memory_seq AS newer FROM graph_claims c JOIN graph_claims n ON n.id = c.superseded_by
        JOIN memories mo ON mo.seq = c.memory_seq JOIN memories mn ON mn.seq = n.memory_seq
      WHERE c.memory_seq = ANY(${seqs}::int[]) AND c.status = 'superseded' AND mo.project IS NOT DISTINCT FROM mn.project`;
    for (const r of rows) (out.get(r.old) ?? out.set(r.old, new Set()).get(r.old)!).add(r.newer);
    return out;
  }

  async seqsOf(agentId: string, ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; seq: number }[] = await this.sql`SELECT id, seq FROM memories WHERE id = ANY(${ids}::text[]) AND agent_id = ${agentId}`;
    return new Map(rows.map((r) => [r.id, r.seq]));
  }

  async rateAspects(agentId: string, moves: { seq: number; move: number }[]): Promise<number> {
    const moving = moves.filter((m) => m.move !== 0);
    if (moving.length === 0) return 0;
    return this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK_GRAPH_WRITES}, hashtext(${agentId}))`;
      let rated = 0;
      // A statement a move: two moves may shift one weight, each from where the other left it.
      for (const { seq, move } of moving) {
        const factor = Math.exp(0.2 * move);
        const shifted = await tx`
          WITH paths AS (
            SELECT g.entity_id, COALESCE(c.aspect, 'mentions') AS aspect FROM graph_mentions g
            LEFT JOIN (SELECT DISTINCT entity_id, aspect FROM graph_claims WHERE memory_seq = ${seq}) c ON c.entity_id = g.entity_id
            WHERE g.memory_seq = ${seq})
          INSERT INTO graph_aspects (entity_id, name, weight)
          SELECT entity_id, aspect, LEAST(4, GREATEST(0.25, ${factor}::float8)) FROM paths
          ON CONFLICT (entity_id, name) DO UPDATE SET weight = LEAST(4, GREATEST(0.25, graph_aspects.weight * ${factor}::float8))`;
        if (shifted.count > 0) rated++;
      }
      return rated;
    });
  }

  // ---- reviews ----

  dueReviews(agentId: string, limit: number): Promise<DueReview[]> {
    return this.sql`
      SELECT m.seq, m.id, m.content, m.type, r.reason FROM graph_reviews r JOIN memories m ON m.seq = r.memory_seq
      WHERE r.agent_id = ${agentId} AND r.surfaced_at IS NULL AND m.deleted_at IS NULL ORDER BY r.due_at, m.seq LIMIT ${limit}`;
  }

  async markSurfaced(seqs: number[], at: string): Promise<void> {
    await this.sql`UPDATE graph_reviews SET surfaced_at = ${at} WHERE memory_seq = ANY(${seqs}::int[])`;
  }

  async agentsWithDueReviews(now: string): Promise<string[]> {
    const rows: { agent_id: string }[] = await this.sql`
      SELECT DISTINCT m.agent_id FROM memories m
      WHERE m.review_after IS NOT NULL AND m.deleted_at IS NULL AND m.review_after <= ${now}
        AND NOT EXISTS (SELECT 1 FROM graph_reviews r WHERE r.memory_seq = m.seq)`;
    return rows.map((r) => r.agent_id);
  }

  // ---- the API's reads ----

  entities(agentId: string, query: string | undefined, limit: number): Promise<(EntityRow & { aliases: string[] })[]> {
    const { values, p } = parameters();
    const named = query ? `AND EXISTS (SELECT 1 FROM graph_aliases a WHERE a.entity_id = e.id AND a.key LIKE ${p(namePattern(query))} ESCAPE '\\')` : "";
    return this.sql.unsafe(
      `SELECT ${ENTITY_COLUMNS} FROM graph_entities e
       WHERE e.agent_id = ${p(agentId)} AND e.merged_into IS NULL ${named}
       ORDER BY mentions DESC, e.name COLLATE "C" LIMIT ${p(limit)}`,
      values,
    );
  }

  async find(agentId: string, ref: string): Promise<(EntityRow & { aliases: string[] }) | null> {
    const [own] = await this.sql<{ id: string }[]>`SELECT id FROM graph_entities WHERE id = ${ref} AND agent_id = ${agentId}`;
    let id = own?.id;
    if (id === undefined) {
      const [named] = await this.sql<{ entity_id: string }[]>`
        SELECT a.entity_id FROM graph_aliases a JOIN graph_entities e ON e.id = a.entity_id
        WHERE a.agent_id = ${agentId} AND a.key = ${nameKey(ref)} ORDER BY e.merged_into IS NOT NULL LIMIT 1`;
      id = named?.entity_id;
    }
    for (let hops = 0; id && hops < 64; hops++) {
      const [row] = await this.sql<(EntityRow & { aliases: string[]; merged_into: string | null })[]>`
        SELECT ${this.sql.unsafe(ENTITY_COLUMNS)}, e.merged_into FROM graph_entities e WHERE e.id = ${id}`;
      if (!row) return null;
      if (row.merged_into === null) {
        const { merged_into: _, ...entity } = row;
        return entity;
      }
      id = row.merged_into;
    }
    return null;
  }

  aspects(entityId: string): Promise<{ name: string; weight: number }[]> {
    return this.sql`SELECT name, weight FROM graph_aspects WHERE entity_id = ${entityId} ORDER BY name COLLATE "C"`;
  }

  claims(entityId: string): Promise<ClaimRow[]> {
    return this.sql`
      SELECT c.id, c.entity_id, c.aspect, c.slot, c.value, c.confidence, c.status, c.valid_from, c.valid_until,
             c.superseded_by, m.id AS memory_id, c.recorded_at
      FROM graph_claims c JOIN memories m ON m.seq = c.memory_seq
      WHERE c.entity_id = ${entityId} ORDER BY c.aspect COLLATE "C", c.slot COLLATE "C", c.status, c.valid_from DESC, c.id DESC`;
  }

  relations(entityId: string, limit: number): Promise<RelationRow[]> {
    return this.sql`
      SELECT e.id, e.name, e.type, r.type AS relation, r.strength, r.evidence
      FROM graph_relations r JOIN graph_entities e ON e.id = CASE WHEN r.from_id = ${entityId} THEN r.to_id ELSE r.from_id END
      WHERE (r.from_id = ${entityId} OR r.to_id = ${entityId}) AND e.merged_into IS NULL
      ORDER BY r.strength DESC, r.evidence DESC LIMIT ${limit}`;
  }

  memories(entityId: string, limit: number): Promise<MentionedMemoryRow[]> {
    return this.sql`
      SELECT m.id, m.content, m.created_at FROM graph_mentions g JOIN memories m ON m.seq = g.memory_seq
      WHERE g.entity_id = ${entityId} AND m.deleted_at IS NULL ORDER BY m.created_at DESC, m.seq DESC LIMIT ${limit}`;
  }

  // ---- Dreaming ----

  async alone<T>(agentId: string, pass: () => Promise<T>): Promise<T | null> {
    const held = await this.sql.reserve();
    let got = false;
    try {
      const [row] = await held<{ got: boolean }[]>`SELECT pg_try_advisory_lock(${LOCK_DREAM}, hashtext(${agentId})) AS got`;
      got = row!.got;
      if (!got) return null;
      return await pass();
    } finally {
      // Unlocked before the pass's caller hears it ended (the server ends a closed session's locks
      // only once it notices), then closed, not returned to the pool: the session ends whatever the
      // pass left it in.
      if (got) await held`SELECT pg_advisory_unlock(${LOCK_DREAM}, hashtext(${agentId}))`.catch(() => undefined);
      await held.close();
    }
  }

  passGraph(agentId: string): Promise<PassGraph> {
    // One snapshot for the three reads, as the pass plans from them together.
    return this.sql.begin("isolation level repeatable read read only", async (tx) => ({
      entities: await tx`
        SELECT e.id, e.name, e.type, (SELECT count(*)::int FROM graph_claims c WHERE c.entity_id = e.id) AS claims
        FROM graph_entities e WHERE e.agent_id = ${agentId} AND e.merged_into IS NULL ORDER BY e.created_at, e.id COLLATE "C"`,
      aliases: await tx`SELECT entity_id, key, alias FROM graph_aliases WHERE agent_id = ${agentId}`,
      mentions: await tx`
        SELECT g.entity_id, g.memory_seq FROM graph_mentions g JOIN graph_entities e ON e.id = g.entity_id
        WHERE e.agent_id = ${agentId} AND e.merged_into IS NULL`,
    }));
  }

  passClaims(agentId: string): Promise<PassClaim[]> {
    return this.sql`
      SELECT c.id, c.entity_id, m.project, c.aspect, c.slot, c.value, c.status, c.valid_from, c.valid_until, c.superseded_by
      FROM graph_claims c JOIN graph_entities e ON e.id = c.entity_id JOIN memories m ON m.seq = c.memory_seq WHERE e.agent_id = ${agentId}`;
  }

  async coOccurrences(entityIds: string[]): Promise<[string, string][]> {
    if (entityIds.length === 0) return [];
    const rows: { from_id: string; to_id: string }[] = await this.sql`
      SELECT from_id, to_id FROM graph_relations WHERE from_id = ANY(${entityIds}::text[]) AND type = 'co-occurs'`;
    return rows.map((r) => [r.from_id, r.to_id]);
  }

  async decayedAt(agentId: string): Promise<string | null> {
    const [row] = await this.sql<{ decayed_at: string }[]>`SELECT decayed_at FROM graph_agents WHERE agent_id = ${agentId}`;
    return row?.decayed_at ?? null;
  }

  async topSeq(): Promise<number> {
    const [row] = await this.sql<{ top: number }[]>`SELECT COALESCE(max(seq), 0)::int AS top FROM memories`;
    return row!.top;
  }

  decays(agentId: string, rule: DecayRule, after: number, upTo: number): Promise<Decay[]> {
    // As the SQLite store computes it, days from epoch seconds where SQLite has julianday().
    return this.sql.unsafe(
      `SELECT seq, id, version, base, importance AS "from", "to" FROM (
         SELECT seq, id, version, importance, base,
                round((base * greatest($1::float8, CASE WHEN idle > 0 THEN power(0.5, idle / $2::float8) ELSE 1 END))::numeric, 3)::float8 AS "to"
         FROM (SELECT m.seq, m.id, m.version, m.importance,
                      CASE WHEN d.version = m.version THEN d.base ELSE m.importance END AS base,
                      extract(epoch FROM $5::timestamptz - COALESCE(m.last_accessed_at, m.created_at)::timestamptz)::float8 / 86400 - $3::float8 AS idle
               FROM ${rule.scan ? "memories m LEFT JOIN graph_decay d ON d.memory_seq = m.seq" : "graph_decay d JOIN memories m ON m.seq = d.memory_seq"}
               WHERE m.agent_id = $6 AND m.deleted_at IS NULL AND m.pinned = 0 AND m.seq > $7 AND m.seq <= $8) unused) decayed
       WHERE abs("to" - importance) >= $4::float8 ${rule.scan ? "" : 'AND "to" > importance'}`,
      [rule.floor, rule.halfLifeDays, rule.afterDays, rule.step, rule.now, agentId, after, upTo],
    );
  }

  dueForReview(agentId: string, now: string): Promise<{ seq: number; id: string; dueAt: string }[]> {
    return this.sql`
      SELECT m.seq, m.id, m.review_after AS "dueAt" FROM memories m
      WHERE m.agent_id = ${agentId} AND m.deleted_at IS NULL AND m.review_after IS NOT NULL AND m.review_after <= ${now}
        AND NOT EXISTS (SELECT 1 FROM graph_reviews r WHERE r.memory_seq = m.seq)`;
  }

  async applyPass(agentId: string, w: PassWrites, record: PassRecord): Promise<number> {
    const now = record.startedAt;
    const id = await this.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${LOCK_GRAPH_WRITES}, hashtext(${agentId}))`;
      if (w.merges.length > 0) await merge(tx, w.merges, now);
      if (w.names.length > 0) {
        const n = w.names;
        await tx`
          UPDATE graph_entities e SET name = n.name, updated_at = ${now}
          FROM unnest(${column(n, "entity")}::text[], ${column(n, "name")}::text[]) AS n(entity, name) WHERE e.id = n.entity`;
        const dropped = n.filter((x) => x.drop !== null);
        if (dropped.length > 0) {
          await tx`
            DELETE FROM graph_aliases a USING unnest(${column(dropped, "entity")}::text[], ${dropped.map((x) => x.drop!)}::text[]) AS d(entity, key)
            WHERE a.entity_id = d.entity AND a.key = d.key`;
        }
      }
      if (w.renames.length > 0) {
        const r = w.renames;
        await tx`
          WITH renamed AS (
            UPDATE graph_claims c SET aspect = r.into_aspect, slot = r.into_slot
            FROM unnest(${r.map((x) => x.entity)}::text[], ${r.map((x) => x.from.aspect)}::text[], ${r.map((x) => x.from.slot)}::text[],
                        ${r.map((x) => x.into.aspect)}::text[], ${r.map((x) => x.into.slot)}::text[]) AS r(entity, from_aspect, from_slot, into_aspect, into_slot)
            WHERE c.entity_id = r.entity AND c.aspect = r.from_aspect AND c.slot = r.from_slot)
          INSERT INTO graph_aspects (entity_id, name)
          SELECT * FROM unnest(${r.map((x) => x.entity)}::text[], ${r.map((x) => x.into.aspect)}::text[]) ON CONFLICT DO NOTHING`;
      }
      if (w.claims.length > 0) {
        await tx`
          UPDATE graph_claims c SET status = u.status, valid_until = u.valid_until, superseded_by = u.superseded_by
          FROM unnest(${column(w.claims, "id")}::int[], ${column(w.claims, "status")}::text[], ${column(w.claims, "validUntil")}::text[],
                      ${column(w.claims, "supersededBy")}::int[]) AS u(id, status, valid_until, superseded_by)
          WHERE c.id = u.id`;
      }
      if (w.relations.length > 0) {
        await tx`
          INSERT INTO graph_relations (from_id, to_id, type, strength, evidence, updated_at)
          SELECT a, b, 'co-occurs', strength, evidence, ${now}
          FROM unnest(${column(w.relations, "a")}::text[], ${column(w.relations, "b")}::text[], ${column(w.relations, "strength")}::float8[],
                      ${column(w.relations, "evidence")}::int[]) AS r(a, b, strength, evidence)
          ON CONFLICT (from_id, to_id, type) DO UPDATE SET strength = excluded.strength, evidence = excluded.evidence, updated_at = excluded.updated_at
          WHERE graph_relations.strength <> excluded.strength OR graph_relations.evidence <> excluded.evidence`;
      }
      if (w.staleRelations.length > 0) {
        await tx`
          DELETE FROM graph_relations r USING unnest(${w.staleRelations.map(([a]) => a)}::text[], ${w.staleRelations.map(([, b]) => b)}::text[]) AS s(a, b)
          WHERE r.from_id = s.a AND r.to_id = s.b AND r.type = 'co-occurs'`;
      }
      if (w.reviews.length > 0) {
        await tx`
          INSERT INTO graph_reviews (memory_seq, agent_id, due_at, reason, queued_at)
          SELECT seq, ${agentId}, due_at, reason, ${now}
          FROM unnest(${column(w.reviews, "seq")}::int[], ${column(w.reviews, "dueAt")}::text[], ${column(w.reviews, "reason")}::text[]) AS r(seq, due_at, reason)
          ON CONFLICT DO NOTHING`;
      }
      if (w.decays.length > 0) {
        // Derived upkeep, not an edit: the memory's version and history stay as they are.
        await tx`
          WITH d AS (
            SELECT * FROM unnest(${column(w.decays, "seq")}::int[], ${column(w.decays, "version")}::int[], ${column(w.decays, "base")}::float8[],
                                 ${column(w.decays, "to")}::float8[]) AS d(seq, version, base, importance)),
          decayed AS (UPDATE memories m SET importance = d.importance FROM d WHERE m.seq = d.seq AND m.version = d.version RETURNING m.seq)
          INSERT INTO graph_decay (memory_seq, version, base, decayed_at)
          SELECT d.seq, d.version, d.base, ${now} FROM d JOIN decayed ON decayed.seq = d.seq
          ON CONFLICT (memory_seq) DO UPDATE SET version = excluded.version, base = excluded.base, decayed_at = excluded.decayed_at`;
      }
      if (w.decayScanned) {
        await tx`
          INSERT INTO graph_agents (agent_id, decayed_at) VALUES (${agentId}, ${now})
          ON CONFLICT (agent_id) DO UPDATE SET decayed_at = excluded.decayed_at`;
      }
      if (w.prunes.length > 0) {
        await tx`
          WITH relations AS (DELETE FROM graph_relations WHERE from_id = ANY(${w.prunes}::text[]) OR to_id = ANY(${w.prunes}::text[])),
          aliases AS (DELETE FROM graph_aliases WHERE entity_id = ANY(${w.prunes}::text[])),
          aspects AS (DELETE FROM graph_aspects WHERE entity_id = ANY(${w.prunes}::text[]))
          DELETE FROM graph_entities WHERE id = ANY(${w.prunes}::text[])`;
      }
      const [pass] = await tx<{ id: number }[]>`
        INSERT INTO graph_dreams (agent_id, trigger, started_at, finished_at, summary)
        VALUES (${agentId}, ${record.trigger}, ${record.startedAt}, ${record.finishedAt}, ${record.summary}) RETURNING id`;
      // Heard by every daemon when the pass commits: their gazetteers of the agent are stale.
      await tx`SELECT pg_notify(${GRAPH_PASS_CHANNEL}, ${agentId})`;
      return pass!.id;
    });
    // The pass moved names between entities.
    this.gazetteers.delete(agentId);
    return id;
  }

  async audit(dreamId: number, rows: { action: string; detail: string }[]): Promise<void> {
    await this.sql`
      INSERT INTO graph_audit (dream_id, action, detail)
      SELECT ${dreamId}, action, detail FROM unnest(${column(rows, "action")}::text[], ${column(rows, "detail")}::text[]) AS a(action, detail)`;
  }
}

/**
 * A pass's merges: each merged entity's names, mentions, claims and aspects go to the end of its
 * chain (a into b, b into c: c), as merging them one after another leaves them; of two names or
 * aspects that meet, the one nearer the end of the chain stays, as it would.
 */
async function merge(tx: Sql, merges: PassWrites["merges"], now: string): Promise<void> {
  const into = new Map(merges.map((m) => [m.from, m.into]));
  const from = merges.map((m) => m.from);
  const target: string[] = [];
  const hops: number[] = [];
  for (const id of from) {
    let at = into.get(id)!;
    let n = 1;
    for (; into.has(at); n++) at = into.get(at)!;
    target.push(at);
    hops.push(n);
  }
  await tx`
    UPDATE graph_entities e SET merged_into = m.into_id, updated_at = ${now}
    FROM unnest(${from}::text[], ${merges.map((m) => m.into)}::text[]) AS m(id, into_id) WHERE e.id = m.id`;
  await tx`
    UPDATE graph_entities e SET type = t.type, updated_at = ${now}
    FROM (SELECT DISTINCT id, type FROM unnest(${merges.map((m) => m.into)}::text[], ${merges.map((m) => m.type)}::text[]) AS u(id, type)) t
    WHERE e.id = t.id`;
  // Each table's rows move and leave in one statement: its parts see the rows as they were before it.
  await tx`
    WITH r AS (SELECT * FROM unnest(${from}::text[], ${target}::text[], ${hops}::int[]) AS r(id, target, hops)),
    aliases AS (
      INSERT INTO graph_aliases (agent_id, key, entity_id, alias)
      SELECT a.agent_id, a.key, r.target, a.alias FROM graph_aliases a JOIN r ON r.id = a.entity_id ORDER BY r.hops
      ON CONFLICT DO NOTHING),
    unaliased AS (DELETE FROM graph_aliases a USING r WHERE a.entity_id = r.id),
    mentions AS (
      INSERT INTO graph_mentions (entity_id, memory_seq)
      SELECT r.target, g.memory_seq FROM graph_mentions g JOIN r ON r.id = g.entity_id ON CONFLICT DO NOTHING),
    unmentioned AS (DELETE FROM graph_mentions g USING r WHERE g.entity_id = r.id),
    claims AS (UPDATE graph_claims c SET entity_id = r.target FROM r WHERE c.entity_id = r.id),
    aspects AS (
      INSERT INTO graph_aspects (entity_id, name, weight)
      SELECT r.target, s.name, s.weight FROM graph_aspects s JOIN r ON r.id = s.entity_id ORDER BY r.hops
      ON CONFLICT DO NOTHING),
    unaspected AS (DELETE FROM graph_aspects s USING r WHERE s.entity_id = r.id)
    DELETE FROM graph_relations g USING r WHERE g.from_id = r.id OR g.to_id = r.id`;
}
