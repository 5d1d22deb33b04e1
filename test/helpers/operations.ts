// Shared by the tests of the operation table: an answer checked against its schema exactly, and
// the API tokens of a team-mode daemon, one per role.
import { expect } from "bun:test";
import type { z } from "zod";
import type { TestDaemon } from "./daemon";
import { call } from "./memory-api";

/** `value` is exactly what `schema` describes: nothing missing, nothing undeclared. */
export function exactly(schema: z.ZodType, value: unknown): void {
  expect(schema.parse(value)).toEqual(value);
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type TokenRole = "agent" | "readonly" | "admin";

/** A token of each role, made with the owner's credential; the agent token acts as `agentId`. */
export async function roleTokens(td: TestDaemon, agentId: string): Promise<Record<TokenRole, string>> {
  const tokens = {} as Record<TokenRole, string>;
  for (const role of ["agent", "readonly", "admin"] as const) {
    const res = await call(td, "POST", "/api/tokens", { body: role === "agent" ? { role, agentId } : { role }, headers: td.ownerHeaders });
    expect(res.status).toBe(201);
    tokens[role] = res.body.token;
  }
  return tokens;
}
