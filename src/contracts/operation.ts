// One operation of the daemon's API, declared once (src/contracts/api.ts lists them all): where it
// lives (its route in src/contracts/routes.ts: method, path, the permission a token needs, the
// owner's credential) and the zod schemas of what it takes and answers. The routes
// (src/server/serve.ts), the permission and credential table (src/server/permissions.ts), the
// client's typed methods (src/client/client.ts), the MCP tools' permissions and output schemas
// (src/mcp/tool.ts) and the dashboard's calls are derived from it.
import type { z } from "zod";
import type { Route } from "./routes";

interface Schemas {
  /**
   * What the input is called in an error ("remember request": "invalid remember request: ..."); a
   * `:name` in it is that path parameter's value (":event hook request").
   */
  input?: string;
  /** The JSON body's schema, for a route that takes a body. */
  body?: z.ZodType;
  /** The query string's schema (its fields arrive as strings), for a route that takes a query. */
  query?: z.ZodType;
  /** The JSON answer; for a streamed route, one of its lines or events. */
  response: z.ZodType;
}

/** The schemas a route's input needs: a body's, a query's, or neither. */
type InputSchemas<R extends Route> = R extends { takes: "body" }
  ? { body: z.ZodType; query?: never }
  : R extends { takes: "query" }
    ? { query: z.ZodType; body?: never }
    : { body?: never; query?: never };

export type Operation = Route & Schemas;

/** The operation at `route` with these schemas; a schema for an input the route does not take is a type error. */
export function operation<const R extends Route, const S extends Schemas & InputSchemas<R>>(route: R, schemas: S): R & S {
  return { ...route, ...schemas };
}

/** The path parameters of `P`, as the positional strings a client method takes. */
export type PathParams<P extends string> = P extends `${string}:${string}/${infer Rest}`
  ? [string, ...PathParams<`/${Rest}`>]
  : P extends `${string}:${string}`
    ? [string]
    : [];

type QueryValue = string | number | boolean | string[] | undefined;
/** A query as a caller gives it: the fields of the schema, with plain values the client turns into strings. */
export type QueryArgs<Q extends z.ZodType> = { [K in keyof z.input<Q>]?: QueryValue };

/** What a client method takes after the path parameters: the body, or the query (optional when it may be left out). */
export type InputArgs<O extends Operation> = O extends { body: infer B extends z.ZodType }
  ? undefined extends z.input<B>
    ? [body?: z.input<B>]
    : [body: z.input<B>]
  : O extends { query: infer Q extends z.ZodType }
    ? [query?: QueryArgs<Q>]
    : [];

export type Answer<O extends Operation> = z.output<O["response"]>;

/** A path parameter: `:name`, one segment. */
const PARAM = /:[^/]+/g;

/** The path with its parameters filled in, each encoded as one segment. */
export function fillPath(path: string, params: readonly string[]): string {
  let i = 0;
  return path.replace(PARAM, () => encodeURIComponent(params[i++] ?? ""));
}

/** How many parameters a path takes. */
export function paramCount(path: string): number {
  return path.match(PARAM)?.length ?? 0;
}

/** The body an operation takes, as a caller writes it. */
export type BodyOf<O extends Operation> = O extends { body: infer B extends z.ZodType } ? z.input<B> : never;
