// Roles, permissions and API tokens (docs/security.md#roles-and-permissions, docs/api.md#tokens):
// one schema shared by the token operations (tokens.ts), the core and `signet token`.
import { z } from "zod";
import { AgentIdSchema } from "./agent";
import { answer } from "./answer";
import { READ_NEEDS, ROLES } from "./vocabulary";

const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/**
 * What a route or an MCP tool needs. `analytics-report` (signet-mcp reporting the caller's own tool
 * calls, which also needs the owner's instance key) is given to every role.
 */
const PERMISSIONS = [
  "recall",
  "remember",
  "modify",
  "forget",
  "sessions",
  "sessions-read",
  "messages",
  "secrets-exec",
  "secrets-manage",
  "mcp-call",
  "mcp-manage",
  "analytics-read",
  "analytics-report",
  "sources-manage",
  "data-transfer",
  "tokens-manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** SPEC §12. An agent's `sessions` covers reading them too. */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(PERMISSIONS),
  operator: new Set(PERMISSIONS.filter((p) => p !== "tokens-manage")),
  agent: new Set<Permission>([
    "recall",
    "remember",
    "modify",
    "forget",
    "sessions",
    "sessions-read",
    "messages",
    "secrets-exec",
    "mcp-call",
    "analytics-report",
  ]),
  readonly: new Set<Permission>(["recall", "sessions-read", "analytics-read", "analytics-report"]),
};

/** Permissions that only read: requests needing them are not counted against a token's rate limit. */
export const READ_PERMISSIONS = READ_NEEDS as ReadonlySet<Permission>;

/** What a refusal says a token of `role` lacks: "permission X, which an agent token does not have". */
export function lackedPermission(role: Role, need: string): string {
  return `permission ${need}, which ${/^[aeiou]/.test(role) ? "an" : "a"} ${role} token does not have`;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const MAX_LIFETIME_MS = 10 * 365 * UNIT_MS.d;

/** `30d`, `12h`, `90m`, `2w` as milliseconds, or null when malformed or beyond ten years. */
export function parseLifetime(value: string): number | null {
  const m = /^(\d{1,6})([mhdw])$/.exec(value.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms > 0 && ms <= MAX_LIFETIME_MS ? ms : null;
}

export const TokenCreateRequestSchema = z
  .object({
    role: RoleSchema,
    /** Required for role `agent`, refused for the others: the agent the token acts as, whatever the request says. */
    agentId: AgentIdSchema.optional(),
    /** A lifetime such as `30d`, `12h`, `90m` or `2w`; none: the token lasts until revoked. */
    expires: z
      .string()
      .refine((v) => parseLifetime(v) !== null, "a lifetime such as 30d, 12h, 90m or 2w (at most ten years)")
      .optional(),
    /** A label for people reading `signet token list`. */
    name: z.string().min(1).max(100).optional(),
  })
  .strict()
  .superRefine((req, ctx) => {
    if (req.role === "agent" && req.agentId === undefined) {
      ctx.addIssue({ code: "custom", path: ["agentId"], message: "role agent needs the agent the token is bound to" });
    }
    if (req.role !== "agent" && req.agentId !== undefined) {
      ctx.addIssue({ code: "custom", path: ["agentId"], message: `only agent tokens are bound to an agent, not ${req.role} tokens` });
    }
  });
export type TokenCreateRequest = z.infer<typeof TokenCreateRequestSchema>;

export const TokenIdSchema = z.string().regex(/^tok_[0-9a-f]{16}$/, "token ids look like tok_ followed by 16 hex digits");

/** A token as listed: never its secret, nor its hash. */
export const TokenInfoSchema = answer({
  id: z.string(),
  role: RoleSchema,
  agentId: z.string().nullable(),
  name: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfoSchema>;

/** The answer to creating a token: the only time `token` is ever shown. */
export const TokenCreateResponseSchema = answer({ ...TokenInfoSchema.shape, token: z.string() });
export type TokenCreateResponse = z.infer<typeof TokenCreateResponseSchema>;

export const TokenListResponseSchema = answer({ tokens: z.array(TokenInfoSchema) });
