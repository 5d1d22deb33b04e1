// The knowledge graph (docs/api.md#knowledge-graph): GET /api/graph/entities, GET
// /api/graph/entities/:id, POST /api/graph/dream, and `signet graph` / `signet dream`.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { intString } from "./memory";
import { operation } from "./operation";
import { ROUTES } from "./routes";

const ENTITIES_MAX_LIMIT = 200;

const EntitiesQuerySchema = z
  .object({
    query: z.string().max(200).optional(),
    limit: intString(1, ENTITIES_MAX_LIMIT).default(20),
    agent_id: AgentIdSchema.optional(),
  })
  .strict();

const EntityQuerySchema = z.object({ agent_id: AgentIdSchema.optional() }).strict();

const EntitySchema = answer({
  id: z.string(),
  name: z.string(),
  type: z.string().describe("person, project, thing, or the type a structured payload gave"),
  aliases: z.array(z.string()).describe("Other names the entity is known by"),
  mentions: z.number().describe("Memories that mention it"),
});

const EntitiesResponseSchema = answer({ entities: z.array(EntitySchema) });

const ClaimSchema = answer({
  id: z.number(),
  aspect: z.string(),
  slot: z.string(),
  value: z.string(),
  confidence: z.number(),
  status: z.enum(["active", "superseded"]),
  validFrom: z.string().describe("When the evidence was recorded: its memory's createdAt"),
  validUntil: z.string().nullable().describe("When newer evidence replaced it (superseded claims)"),
  supersededBy: z.number().nullable(),
  memoryId: z.string().describe("The memory the claim comes from"),
  recordedAt: z.string().describe("When extraction read it"),
});

const EntityDetailSchema = answer({
  entity: answer({ ...EntitySchema.shape, pinned: z.boolean() }),
  aspects: z.array(answer({ name: z.string(), weight: z.number() })),
  claims: z.array(ClaimSchema).describe("Current and superseded, by aspect and slot, newest first"),
  relations: z.array(
    answer({
      entity: answer({ id: z.string(), name: z.string(), type: z.string() }),
      type: z.string(),
      strength: z.number(),
      evidence: z.number().describe("Memories behind the relation"),
    }),
  ),
  memories: z.array(answer({ id: z.string(), content: z.string(), createdAt: z.string() })).describe("The latest memories that mention it"),
});

const DreamRequestSchema = z
  .object({
    dryRun: z.boolean().optional(),
    /** With an llm configured: apply the merges it proposes (by default as graph.llmApply says). */
    apply: z.boolean().optional(),
    agentId: AgentIdSchema.optional(),
  })
  .strict()
  .default({});

const DREAM_ACTIONS = ["merge", "name", "propose", "rename", "supersede", "reinstate", "relate", "review", "decay", "prune"] as const;

const DreamResponseSchema = answer({
  dream: answer({
    id: z.number().nullable().describe("The pass's audit id; null for a dry run"),
    agentId: z.string(),
    dryRun: z.boolean(),
    trigger: z.string(),
    startedAt: z.string(),
    durationMs: z.number(),
    counts: answer(Object.fromEntries(DREAM_ACTIONS.map((a) => [a, z.number()])) as Record<(typeof DREAM_ACTIONS)[number], z.ZodNumber>),
    actions: z.array(answer({ action: z.enum(DREAM_ACTIONS), detail: z.record(z.string(), z.unknown()) })).describe("The first 200 actions"),
    llm: answer({
      model: z.string(),
      status: z.enum(["applied", "proposed", "failed"]),
      reason: z.string().optional(),
    })
      .optional()
      .describe("The model step, when an llm is configured: its merges applied, only proposed, or why it failed"),
  }),
});

export const GRAPH_API = {
  entities: operation(ROUTES.graph.entities, { input: "entities query", query: EntitiesQuerySchema, response: EntitiesResponseSchema }),
  entity: operation(ROUTES.graph.entity, { input: "entity query", query: EntityQuerySchema, response: EntityDetailSchema }),
  /** Rewrites the derived graph: the owner's admin token (docs/security.md). */
  dream: operation(ROUTES.graph.dream, { input: "dream request", body: DreamRequestSchema, response: DreamResponseSchema }),
};
