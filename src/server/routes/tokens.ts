// /api/tokens (docs/api.md#tokens): create, list and revoke API tokens. The guard lets only the
// owner's admin credential through (token management, in every auth mode).
import { Elysia } from "elysia";
import { TokenCreateRequestSchema, TokenIdSchema, type TokenListResponse } from "../../contracts/auth";
import { parseInput } from "../../contracts/parse";
import type { DaemonContext } from "../context";

export function tokenRoutes(ctx: DaemonContext) {
  const { tokens } = ctx;
  return new Elysia()
    .get("/api/tokens", (): TokenListResponse => ({ tokens: tokens.list() }))
    .post("/api/tokens", ({ body, set }) => {
      const req = parseInput(TokenCreateRequestSchema, body ?? {}, "token request");
      set.status = 201;
      return tokens.create(req);
    })
    .delete("/api/tokens/:id", ({ params }) => tokens.revoke(parseInput(TokenIdSchema, params.id, "token id")));
}
