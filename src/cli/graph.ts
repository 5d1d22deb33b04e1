// `signet graph entities|show` and `signet dream` (docs/api.md#knowledge-graph): the agent's
// knowledge graph as extraction and Dreaming derived it from its memories, and a Dreaming pass on
// demand (the owner's admin token, which the client reads from the data directory).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import type { Answer } from "../contracts/operation";
import type { GRAPH_API } from "../contracts/graph";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { emit } from "./output";
import { textTable } from "./table";

type Detail = Answer<typeof GRAPH_API.entity>;
type Dream = Answer<typeof GRAPH_API.dream>["dream"];

const entities = defineCommand({
  meta: { name: "entities", description: "List the entities of the agent's graph, most mentioned first; a query keeps those whose names contain it" },
  args: {
    query: { type: "positional", text: true, required: false, description: "Part of a name, in any case" },
    limit: { type: "string", description: "At most this many (1-200, default 20)" },
    ...clientArgs,
  },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).graph.entities({ query: args.query, limit: args.limit });
    emit(result, args, (r) =>
      r.entities.length === 0
        ? "no entities match (extraction reads memories as they are stored; a name appears once a memory mentions it)"
        : textTable(
            ["name", "type", "mentions", "also called", "id"],
            r.entities.map((e) => [e.name, e.type, String(e.mentions), e.aliases.join(", "), e.id]),
            ["l", "l", "r", "l", "l"],
          ),
    );
  },
});

function detailText(d: Detail): string {
  const e = d.entity;
  const lines = [`${e.name} (${e.type}, ${e.mentions} mentions${e.aliases.length ? `, also ${e.aliases.join(", ")}` : ""}) ${e.id}`];
  if (d.claims.length > 0) {
    lines.push("", "claims:");
    for (const c of d.claims) {
      const when = c.status === "superseded" ? `superseded ${c.validUntil ?? ""}` : `since ${c.validFrom}`;
      lines.push(`  ${c.aspect}.${c.slot} = ${c.value}  [${c.status === "active" ? "current" : "old"}, ${when}, memory ${c.memoryId}]`);
    }
  }
  if (d.relations.length > 0) {
    lines.push("", "related:");
    for (const r of d.relations) lines.push(`  ${r.entity.name} (${r.entity.type}): ${r.type}, ${r.evidence} memories, strength ${r.strength}`);
  }
  if (d.memories.length > 0) {
    lines.push("", "latest memories:");
    for (const m of d.memories) lines.push(`  ${m.id}  ${m.content.replace(/\s+/g, " ").slice(0, 120)}`);
  }
  return lines.join("\n");
}

const show = defineCommand({
  meta: { name: "show", description: "Show one entity: its claims (current and superseded), related entities and latest memories" },
  args: {
    entity: { type: "positional", text: true, required: true, description: "The entity's name (any of its names) or id" },
    ...clientArgs,
  },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).graph.entity(args.entity);
    emit(result, args, detailText);
  },
});

export const graph = defineCommand({
  meta: { name: "graph", description: COMMAND_DESCRIPTIONS.graph },
  args: { ...clientArgs },
  subCommands: { entities, show },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).graph.entities({});
    emit(result, args, (r) => `${r.entities.length} entities listed (most mentioned first)\n\ncommands: signet graph entities [query] | show <name|id>; signet dream [--dry-run]`);
  },
});

function dreamText(d: Dream): string {
  const counts = Object.entries(d.counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  const head = `${d.dryRun ? "would do (dry run, nothing written)" : `dream ${d.id} did`}: ${counts} in ${d.durationMs} ms`;
  const llm = d.llm ? [`the llm (${d.llm.model}): ${d.llm.status}${d.llm.reason ? ` (${d.llm.reason})` : ""}`] : [];
  const lines = d.actions.map((a) => `  ${a.action} ${JSON.stringify(a.detail)}`);
  return [head, ...llm, ...lines].join("\n");
}

export const dream = defineCommand({
  meta: {
    name: "dream",
    description: COMMAND_DESCRIPTIONS.dream,
  },
  args: {
    "dry-run": { type: "boolean", description: "Show what a pass would do without writing anything" },
    apply: { type: "boolean", description: "With an llm configured: apply the merges and same-attribute slots it proposes (otherwise they are only shown, unless graph.llmApply is set)" },
    ...clientArgs,
  },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).graph.dream({ dryRun: args["dry-run"] === true, ...(args.apply === true ? { apply: true } : {}) });
    emit(result.dream, args, dreamText);
  },
});
