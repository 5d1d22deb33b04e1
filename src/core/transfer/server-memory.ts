// @modelcontextprotocol/server-memory's knowledge graph (memory.jsonl: one entity or relation per
// line) as memories (docs/api.md#foreign-formats): every observation becomes a memory of its own,
// tagged with its entity's name and type, its text led by the entity's name unless it names it
// already (a memory recalled alone must say whom it is about); every relation becomes a memory
// "<from> <relationType> <to>" tagged with both entities, so listing by an entity's tag finds both
// what is known about it and how it relates to others.
import type { ServerMemoryItem } from "../../contracts/transfer";
import type { ForeignMemory } from "./foreign";

const SOURCE = "server-memory";

export function serverMemoryMemories(item: ServerMemoryItem): ForeignMemory[] {
  if (item.type === "relation") {
    const { from, relationType, to } = item;
    return [
      {
        origin: `relation\u0000${from}\u0000${relationType}\u0000${to}`,
        content: `${from} ${relationType} ${to}`,
        type: "fact",
        tags: [from, to],
        structured: { source: SOURCE, relation: { from, relationType, to } },
      },
    ];
  }
  const { name, entityType } = item;
  const about = (content: string): ForeignMemory => ({
    origin: `entity\u0000${name}`,
    content,
    type: "fact",
    tags: [name, entityType],
    structured: { source: SOURCE, entity: name, entityType },
  });
  // An entity known by nothing but its name and type is still a fact worth keeping.
  if (item.observations.length === 0) return [about(`${name} (${entityType})`)];
  const named = namePattern(name);
  return item.observations.map((o) => about(named.test(o) ? o : `${name}: ${o}`));
}

/** The name as a whole word or words anywhere in a text, in any case. */
function namePattern(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "iu");
}
