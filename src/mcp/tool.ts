// One tool of the MCP table (docs/mcp.md#tools): what tools/list shows of it (name, title,
// description, input and output schemas, annotations) and a handler typed by its own input shape.
// tools.ts and bridge-tools.ts define tools with defineTool; server.ts registers the table.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { answer } from "../contracts/answer";
import type { Role } from "../contracts/auth";
import type { Operation } from "../contracts/operation";
import { ApiError, DaemonIdentityError, DaemonNotStartedError, DaemonUnreachableError, type SignetClient } from "../client/client";

/** What a transport knows about the caller beyond the agent (which the client carries). */
export interface ToolContext {
  sessionKey?: string;
  /**
   * The project a stored memory is about when the agent names none: signet-mcp's working
   * directory, which the harness gives it. /mcp has none, so memories stored there have no project.
   */
  project?: string;
  /** The role of a token-authenticated caller: each tool checks it (src/mcp/tool-permissions.ts). */
  role?: Role;
  /** Fires when the client cancels the call (notifications/cancelled) or goes away. */
  signal?: AbortSignal;
}

/**
 * A string argument that names what a request's path names (a memory's id, a session key, an
 * installed server): empty, the path would lose that segment and reach no route, or another one.
 * tools/list shows it with minLength 1, and the SDK answers an empty one as invalid arguments,
 * naming the argument ("expected a memory id, got an empty string at id"), on every transport.
 */
export function nonEmpty(what: string) {
  return z.string().min(1, { error: `expected ${what}, got an empty string` });
}

/** A tool's failure that the model should read as such: its message is the whole answer. */
export class ToolFailure extends Error {}

/**
 * MCP tool annotations. The protocol's defaults are the cautious ones (a tool that writes is
 * destructive, every tool reaches an open world), so each tool states openWorldHint, and each that
 * writes also states destructiveHint and idempotentHint.
 */
type Annotations =
  | { readOnlyHint: true; openWorldHint: boolean }
  | { readOnlyHint: false; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

/** Reads Signet's own store (or a project's code index), or would once built: nothing outside it. */
export const READS = { readOnlyHint: true, openWorldHint: false } as const;

/** A tool's answer; `structuredContent` has the type of the tool's output schema. */
type ToolResult<Structured> = {
  content: CallToolResult["content"];
  structuredContent?: Structured;
  isError?: boolean;
};

/** What tools/list shows of a tool, but its output schema. */
interface ToolListing<In extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: In;
  annotations: Annotations;
  /**
   * The daemon operation the handler calls: a token-authenticated caller may run the tool when its
   * role has that operation's permission (the API checks it again for the same caller).
   */
  calls: Operation;
}

interface ToolSpec<In extends z.ZodRawShape, Out extends z.ZodRawShape> extends ToolListing<In> {
  /**
   * For a tool that answers structuredContent. The SDK then checks every answer but an isError one
   * against it, and fails the call when structuredContent is missing or does not match.
   */
  output?: Out;
  handler(args: z.infer<z.ZodObject<In>>, client: SignetClient, ctx: ToolContext): Promise<ToolResult<z.infer<z.ZodObject<Out>>>>;
}

/** A defined tool whose arguments have the type `Args`: what server.ts registers. */
interface TypedTool<Args> {
  name: string;
  title: string;
  description: string;
  input: z.ZodType<Args>;
  output?: z.ZodObject;
  annotations: Annotations;
  calls: Operation;
  /** Runs the handler; every failure becomes an isError answer a model can act on. */
  call(args: Args, client: SignetClient, ctx: ToolContext): Promise<CallToolResult>;
}

/**
 * A table entry. Tools have different argument types, so the table holds each behind a function
 * that hands its typed definition to `use`; neither side needs a cast.
 */
export type Tool = <R>(use: <Args>(tool: TypedTool<Args>) => R) => R;

// Without an output schema, Out is any shape: structuredContent is then an unchecked object (a
// bridged tool's own answer).
export function defineTool<In extends z.ZodRawShape, Out extends z.ZodRawShape = z.ZodRawShape>(spec: ToolSpec<In, Out>): Tool {
  const { input, output, handler, ...listing } = spec;
  const tool: TypedTool<z.infer<z.ZodObject<In>>> = {
    ...listing,
    input: z.object(input),
    output: output && answer(output),
    call: async (args, client, ctx) => {
      try {
        return await handler(args, client, ctx);
      } catch (err) {
        return { isError: true, content: [{ type: "text", text: failureText(spec.name, err) }] };
      }
    },
  };
  return (use) => use(tool);
}

function failureText(tool: string, err: unknown): string {
  // These explain themselves: who holds the port, or why no daemon was started for this store.
  if (err instanceof DaemonIdentityError || err instanceof DaemonNotStartedError) return err.message;
  if (err instanceof DaemonUnreachableError && err.explained) return err.message;
  if (err instanceof DaemonUnreachableError) return `Signet daemon not reachable at ${err.url}: start it with \`signet daemon start\``;
  if (err instanceof ApiError) return `${tool} failed (${err.code}): ${err.message}`;
  if (err instanceof ToolFailure) return err.message;
  return `${tool} failed: ${err instanceof Error ? err.message : String(err)}`;
}

/** The answer of a tool with an output schema: `render`'s text for the model, the value itself as structuredContent. */
export function rendered<S>(value: S, render: (value: S) => string): ToolResult<S> {
  return { content: [{ type: "text", text: render(value) }], structuredContent: value };
}
