// What a batch of extraction writes, table by table, each name it found resolved to the agent's
// entity of that name or to a new one. Both stores write these rows: SQLite a prepared statement a
// row, PostgreSQL one statement for the batch.
import { nameKey, type Extraction } from "./extract";
import type { SourceMemory } from "./store";

/** An extracted entity's names as the gazetteer holds them, (key, name): its own first, then its aliases. */
export function namesOf(e: Extraction["entities"][number]): [key: string, alias: string][] {
  return [[e.key, e.name], ...e.aliases.map((a): [string, string] => [nameKey(a), a])];
}

const newEntityId = () => `ent_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;

export class ExtractionRows {
  readonly entities: { id: string; agent_id: string; name: string; type: string }[] = [];
  /** Entities stored before whose guessed type gives way to one the evidence states (a structured payload's, a project's): the first one. */
  readonly upgrades = new Map<string, string>();
  readonly aliases: { agent_id: string; key: string; entity_id: string; alias: string }[] = [];
  readonly mentions: { entity_id: string; memory_seq: number }[] = [];
  readonly aspects: { entity_id: string; name: string }[] = [];
  readonly claims: { entity_id: string; aspect: string; slot: string; value: string; confidence: number; valid_from: string; memory_seq: number }[] = [];
  readonly extracted: { memory_seq: number; version: number; agent_id: string }[] = [];
  private readonly created = new Map<string, { type: string }>();

  /** Adds what `extraction` found in `memory`; `names`, the agent's key → entity, learns the names new to it. */
  add(memory: SourceMemory, extraction: Extraction, names: Map<string, string>): void {
    const ids = new Map<string, string>();
    for (const e of extraction.entities) {
      const keys = namesOf(e);
      let id = keys.map(([key]) => names.get(key)).find((x) => x !== undefined);
      if (!id) {
        id = newEntityId();
        const row = { id, agent_id: memory.agent_id, name: e.name, type: e.type };
        this.entities.push(row);
        this.created.set(id, row);
      } else if (e.type !== "thing") {
        const made = this.created.get(id);
        if (made) {
          if (made.type === "thing") made.type = e.type;
        } else if (!this.upgrades.has(id)) {
          this.upgrades.set(id, e.type);
        }
      }
      for (const [key, alias] of keys) {
        if (!key || names.has(key)) continue;
        this.aliases.push({ agent_id: memory.agent_id, key, entity_id: id, alias });
        names.set(key, id);
      }
      ids.set(e.key, id);
      this.mentions.push({ entity_id: id, memory_seq: memory.seq });
    }
    for (const c of extraction.claims) {
      const id = ids.get(c.entity);
      if (!id) continue;
      this.aspects.push({ entity_id: id, name: c.aspect });
      this.claims.push({ entity_id: id, aspect: c.aspect, slot: c.slot, value: c.value, confidence: c.confidence, valid_from: memory.created_at, memory_seq: memory.seq });
    }
    this.extracted.push({ memory_seq: memory.seq, version: memory.version, agent_id: memory.agent_id });
  }
}
