// The routes (routes.ts), each typed with its whole operation (api.ts), which only the type checker
// reads: the client and the dashboard's page run on the routes alone, so a command, a hook or the
// page evaluates no schema, while their calls are typed by the operations' schemas.
import type { API } from "./api";
import { ROUTES, type Route } from "./routes";

type Api = typeof API;

/** A route whose operation is known by its type only. */
export type Typed<O> = Route & { readonly operation?: O };

export const TYPED_ROUTES = ROUTES as unknown as { [A in keyof Api]: { [K in keyof Api[A]]: Typed<Api[A][K]> } };
