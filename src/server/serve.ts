// A route from its operation (src/contracts/operation.ts): the method and path are the operation's,
// and the body or query is parsed with its schema before the handler runs, so a handler holds only
// what the operation does. With SIGNET_CHECK_ANSWERS=1 (the test suite sets it) every JSON answer is
// checked against the operation's response schema, so a schema that drifts from the answers fails.
import { Elysia } from "elysia";
import type { z } from "zod";
import { parseInput } from "../contracts/parse";
import { NO_BODY } from "./body";
import type { Operation } from "../contracts/operation";

type Parsed<O, K extends "body" | "query"> = O extends { [P in K]: infer S extends z.ZodType } ? z.output<S> : undefined;

export interface RouteInput<O extends Operation> {
  params: Record<string, string | undefined>;
  body: Parsed<O, "body">;
  query: Parsed<O, "query">;
  /** The query as it arrived, for what the schema does not hold (a challenge nonce). */
  rawQuery: Record<string, string | undefined>;
  request: Request;
  set: { status?: number | string; headers: Record<string, string | number> };
}

export interface ServedRoute {
  op: Operation;
  handle(input: RouteInput<Operation>): unknown;
}

/** A handler for `op`, typed by its schemas. */
export function serve<const O extends Operation>(op: O, handle: (input: RouteInput<O>) => unknown): ServedRoute {
  return { op, handle: handle as (input: RouteInput<Operation>) => unknown };
}

const CHECK_ANSWERS = process.env.SIGNET_CHECK_ANSWERS === "1";

async function checked(op: Operation, answer: unknown): Promise<unknown> {
  const value = await answer;
  if (value instanceof Response) return value;
  const result = op.response.safeParse(value);
  if (!result.success) throw new Error(`${op.method} ${op.path} answered outside its response schema: ${result.error.message}`);
  return value;
}

/** One Elysia plugin serving `routes`. */
export function routes(...served: ServedRoute[]): Elysia {
  const app = new Elysia();
  for (const { op, handle } of served) {
    // Async, so Elysia reads `set.status` once the answer has settled: with a plain function returning
    // the checked answer's promise it answered the status as it was when the handler returned.
    app.route(op.method, op.path, async ({ params, body, query, request, set }) => {
      const label = op.input?.replace(/:(\w+)/g, (name, key: string) => (params as Record<string, string>)[key] ?? name);
      const input: RouteInput<Operation> = {
        params: params as Record<string, string | undefined>,
        // Typed per operation by serve(); here every operation is one type.
        body: (op.body ? parseInput(op.body, body === NO_BODY ? undefined : body, label) : undefined) as never,
        query: (op.query ? parseInput(op.query, query, label) : undefined) as never,
        rawQuery: query as Record<string, string | undefined>,
        request,
        set: set as RouteInput<Operation>["set"],
      };
      const answer = handle(input);
      return CHECK_ANSWERS ? checked(op, answer) : answer;
    });
  }
  return app;
}
