// The token operations (docs/api.md#tokens). Their schemas are auth.ts's; the operations live here
// because operation.ts reads the permissions from auth.ts, which therefore cannot import it.
import { TokenCreateRequestSchema, TokenCreateResponseSchema, TokenInfoSchema, TokenListResponseSchema } from "./auth";
import { operation } from "./operation";
import { ROUTES } from "./routes";

/** Managing tokens needs the owner's admin token, in every auth mode (the guard). */
export const TOKENS_API = {
  list: operation(ROUTES.tokens.list, { response: TokenListResponseSchema }),
  /** Answers 201. */
  create: operation(ROUTES.tokens.create, { input: "token request", body: TokenCreateRequestSchema, response: TokenCreateResponseSchema }),
  revoke: operation(ROUTES.tokens.revoke, { response: TokenInfoSchema }),
};
