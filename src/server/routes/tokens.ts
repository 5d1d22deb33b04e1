// API tokens (docs/api.md#tokens): create, list and revoke them. The guard lets only the owner's
// admin credential through (token management, in every auth mode).
import { TokenIdSchema } from "../../contracts/auth";
import { TOKENS_API } from "../../contracts/tokens";
import { parseInput } from "../../contracts/parse";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

export function tokenRoutes(ctx: DaemonContext) {
  const { tokens } = ctx;
  return routes(
    serve(TOKENS_API.list, async () => ({ tokens: await tokens.list() })),
    serve(TOKENS_API.create, ({ body, set }) => {
      set.status = 201;
      return tokens.create(body);
    }),
    serve(TOKENS_API.revoke, ({ params }) => tokens.revoke(parseInput(TokenIdSchema, params.id, "token id"))),
  );
}
