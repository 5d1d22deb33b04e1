// @modelcontextprotocol/server-memory's knowledge graph (memory.jsonl: one entity or relation per
// line) as memories (docs/api.md#foreign-formats): every observation becomes a memory of its own, its
// text as it was written, tagged with its entity's name and type; every relation becomes a memory
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
  return item.observations.length === 0 ? [about(`${name} (${entityType})`)] : item.observations.map(about);
}
