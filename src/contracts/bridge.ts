// Contracts of the MCP bridge (docs/api.md#bridge): installed servers and calls to their tools. The HTTP
// routes, the MCP tools and the CLI all validate with these.
import { isAbsolute, resolve, sep } from "node:path";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { answer } from "./answer";
import type { ErrorBody } from "./errors";
import { intString } from "./memory";
import { namedRecord } from "./named-record";
import { operation } from "./operation";
import { RESERVED_SERVER_NAMES } from "./bridge-names";
import { ROUTES } from "./routes";

export const ServerNameSchema = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "server names are 1-64 letters, digits and . _ - (starting with a letter or digit)",
  )
  .refine((n) => !(RESERVED_SERVER_NAMES as readonly string[]).includes(n.toLowerCase()), {
    message: `is a reserved word of \`signet mcp\` (${RESERVED_SERVER_NAMES.join(", ")}); choose another name`,
  });

/** Environment and header values: literal, or `secret:NAME` resolved when the server starts. */
const StringMap = namedRecord(z.string().min(1).max(256), z.string().max(8192));

/** A problem of one name → value pair, or null. */
type EntryCheck = (name: string, value: string) => string | null;

/** Refuses each entry of a name → value map that `check` finds a problem with, naming it (path: the map's field). */
function checkEntries(field: string, map: Record<string, string>, check: EntryCheck, ctx: z.RefinementCtx): void {
  for (const [name, value] of Object.entries(map)) {
    const problem = check(name, value);
    if (problem) ctx.addIssue({ code: "custom", path: [field], message: problem });
  }
}

const NUL = "\0";

/**
 * An environment variable as a process gets it, `NAME=value`: a name holding "=" would be cut there
 * (`API_KEY=x` set to `abc` reaches the server as API_KEY set to `x=abc`).
 */
const envProblem: EntryCheck = (name, value) => {
  if (name.includes("=")) return `the name ${JSON.stringify(name)} cannot hold "=": a variable's name ends at the first "="`;
  if (name.includes(NUL)) return `the name ${JSON.stringify(name)} cannot hold a NUL character: no environment variable can carry one`;
  if (value.includes(NUL)) return `the value of ${JSON.stringify(name)} cannot hold a NUL character: no environment variable can carry one`;
  return null;
};

/** An HTTP header name is a token (RFC 9110): letters, digits and these marks. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A header value carries bytes, on one line: no CR, LF or NUL, and no character beyond U+00FF. */
const headerProblem: EntryCheck = (name, value) => {
  if (!HEADER_NAME.test(name)) {
    return `${JSON.stringify(name)} is not an HTTP header name: letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only`;
  }
  const bad = /[\r\n\0]|[^\0-\u00ff]/.exec(value)?.[0];
  if (bad === undefined) return null;
  return `the value of ${JSON.stringify(name)} cannot hold ${JSON.stringify(bad)}: ${/[\r\n]/.test(bad) ? "a header value is one line" : "no header value can carry it"}`;
};

const hasSeparator = (path: string) => path.includes("/") || path.includes(sep);

/** Arguments that are plainly relative paths; others (`--root=./x`, `src`) cannot be told from words. */
const isRelativeArg = (arg: string) => arg === "." || arg === ".." || arg.startsWith("./") || arg.startsWith("../");

// The daemon starts servers from its own directory, which says nothing about where the operator
// or a harness config meant: relative paths are resolved by whoever knows (`anchorPaths`), and
// refused here.
const StdioTransportSchema = z
  .object({
    type: z.literal("stdio"),
    command: z
      .string()
      .trim()
      .min(1, "command cannot be empty")
      .max(4096)
      .refine(
        (c) => isAbsolute(c) || !hasSeparator(c),
        "a relative path cannot be resolved by the daemon: give an absolute path, or a bare program name looked up on PATH",
      ),
    args: z.array(z.string().max(8192)).max(256).default([]),
    env: StringMap.default({}),
    cwd: z.string().min(1).max(4096).refine(isAbsolute, "must be an absolute path: the daemon cannot know what a relative one is relative to").optional(),
  })
  .strict()
  // Out of the shape, which the answers share: a server stored before these checks still shows.
  .superRefine((t, ctx) => {
    // A process's command line is C strings: the start would fail on a NUL.
    const refuse = (path: (string | number)[], what: string) =>
      ctx.addIssue({ code: "custom", path, message: `${what} cannot hold a NUL character: no process can be given one` });
    if (t.command.includes(NUL)) refuse(["command"], "the command");
    t.args.forEach((arg, i) => arg.includes(NUL) && refuse(["args", i], "an argument"));
    if (t.cwd?.includes(NUL)) refuse(["cwd"], "the directory");
    checkEntries("env", t.env, envProblem, ctx);
  });

/**
 * A stdio server's relative paths made absolute, as they read where they were written: `cwd`
 * against `base`, then a command containing a path separator and the arguments `.`, `..`, `./...`,
 * `../...` against that cwd (or `base` without one), where the server would have looked for them.
 * Fields of the wrong type are left for validation to name.
 */
export function anchorPaths<T extends { command?: unknown; args?: unknown; cwd?: unknown }>(transport: T, base: string): T {
  const cwd = typeof transport.cwd === "string" && transport.cwd !== "" ? resolve(base, transport.cwd) : undefined;
  const dir = cwd ?? base;
  const { command, args } = transport;
  return {
    ...transport,
    ...(cwd === undefined ? {} : { cwd }),
    ...(typeof command === "string" && hasSeparator(command) ? { command: resolve(dir, command) } : {}),
    ...(Array.isArray(args) ? { args: args.map((a: unknown) => (typeof a === "string" && isRelativeArg(a) ? resolve(dir, a) : a)) } : {}),
  };
}

const HttpTransportSchema = z
  .object({
    type: z.literal("http"),
    url: z
      .string()
      .trim()
      .max(4096)
      .refine((u) => {
        try {
          return ["http:", "https:"].includes(new URL(u).protocol);
        } catch {
          return false;
        }
      }, "must be an http:// or https:// URL"),
    headers: StringMap.default({}),
  })
  .strict()
  // Out of the shape, which the answers share: a server stored before this check still shows.
  .superRefine((t, ctx) => checkEntries("headers", t.headers, headerProblem, ctx));

const TransportSchema = z.discriminatedUnion("type", [StdioTransportSchema, HttpTransportSchema]);

export const InstallServerRequestSchema = z
  .object({
    name: ServerNameSchema,
    transport: TransportSchema,
    enabled: z.boolean().default(true),
    description: z.string().max(2000).optional(),
  })
  .strict();

const UpdateServerRequestSchema = z
  .object({
    transport: TransportSchema.optional(),
    enabled: z.boolean().optional(),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict();

/** The longest a bridged call may take: the largest `timeoutMs`, and the bound of a call whose progress renews it. */
export const MAX_CALL_TIMEOUT_MS = 30 * 60 * 1000;

/** `--param k=v` words the daemon types against the tool's schema (bridge-params.ts), instead of `arguments`. */
const MAX_CALL_PARAMS = 1000;

const CallRequestSchema = z
  .object({
    tool: z.string().min(1).max(256),
    arguments: namedRecord(z.string(), z.unknown()).default({}),
    params: z.array(z.string().max(1_000_000)).max(MAX_CALL_PARAMS).optional(),
    timeoutMs: z.number().int().min(1).max(MAX_CALL_TIMEOUT_MS).optional(),
    /** Who makes the call, for analytics: the operator's bridge (`cli`) or an agent (`agent`). */
    source: z.enum(["cli", "agent"]).default("cli"),
    /** For `cli` calls: `cli` (terminal) or `dashboard`. */
    client: z.enum(["cli", "dashboard"]).optional(),
    sessionKey: z.string().min(1).max(256).optional(),
  })
  .strict()
  .refine((r) => r.params === undefined || Object.keys(r.arguments).length === 0, {
    message: "give either arguments or params, not both",
    path: ["params"],
  });

/** The `Accept` type that asks a call to stream its progress: NDJSON, one `CallStreamLine` a line. */
export const CALL_STREAM_TYPE = "application/x-ndjson";

/** News of a call in flight: an MCP progress notification, or a task's status as it changes. */
export type CallUpdate =
  | { progress: number; total?: number; message?: string }
  | { task: { taskId: string; status: string; statusMessage?: string } };

/** A line of a streamed call: updates, then the result or the error that ends it. */
export type CallStreamLine = CallUpdate | { result: CallToolResult } | ErrorBody;

export type Transport = z.output<typeof TransportSchema>;
export type InstallServerRequest = z.output<typeof InstallServerRequestSchema>;
export type UpdateServerRequest = z.output<typeof UpdateServerRequestSchema>;
export type CallRequest = z.output<typeof CallRequestSchema>;

// A stored transport answers as it was installed: the request's fields, in an open object.
const TransportAnswerSchema = z.discriminatedUnion("type", [answer(StdioTransportSchema.shape), answer(HttpTransportSchema.shape)]);

const installedServer = {
  name: z.string(),
  transport: TransportAnswerSchema.describe("As installed: references stay references, never resolved values"),
  enabled: z.boolean(),
  description: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

/** An installed server as the API shows it: references stay references, never resolved values. */
const InstalledServerSchema = answer(installedServer);
export type InstalledServer = z.infer<typeof InstalledServerSchema>;

/** An installed server in a listing, with whether its process (or connection) is live now. */
const ListedServerSchema = answer({ ...installedServer, running: z.boolean() });
export type ListedServer = z.infer<typeof ListedServerSchema>;

const ServerListResponseSchema = answer({ servers: z.array(ListedServerSchema) });

// A tool as its server listed it (MCP `Tool`), passed through as is: whatever else it carries
// (execution, icons, _meta) is kept, and its input schema is JSON Schema of any shape.
const BridgeToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.looseObject({
    type: z.literal("object"),
    properties: z.record(z.string(), z.unknown()).optional(),
    required: z.array(z.string()).optional(),
  }),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type BridgeTool = z.infer<typeof BridgeToolSchema>;

const ServerToolsResponseSchema = answer({ server: z.string(), tools: z.array(BridgeToolSchema) });

const booleanQuery = z.enum(["true", "false"]).transform((v) => v === "true");

const ServerListQuerySchema = z.object({ enabled: booleanQuery.optional() }).strict();
const ServerToolsQuerySchema = z.object({ timeout_ms: intString(1, MAX_CALL_TIMEOUT_MS).optional() }).strict();

/**
 * The bridge's API (docs/api.md#bridge). Installing, changing and removing servers need the owner's
 * admin token; listing and calling are an agent's. Listing tools and calling may start a server.
 */
export const BRIDGE_API = {
  list: operation(ROUTES.bridge.list, { input: "server list query", query: ServerListQuerySchema, response: ServerListResponseSchema }),
  /** Answers 201. */
  install: operation(ROUTES.bridge.install, { input: "install request", body: InstallServerRequestSchema, response: InstalledServerSchema }),
  get: operation(ROUTES.bridge.get, { response: InstalledServerSchema }),
  update: operation(ROUTES.bridge.update, { input: "update request", body: UpdateServerRequestSchema, response: InstalledServerSchema }),
  remove: operation(ROUTES.bridge.remove, { response: InstalledServerSchema }),
  tools: operation(ROUTES.bridge.tools, { input: "tools query", query: ServerToolsQuerySchema, response: ServerToolsResponseSchema }),
  /** The tool's own result; with `Accept: application/x-ndjson`, `CallStreamLine`s instead. */
  call: operation(ROUTES.bridge.call, { input: "call request", body: CallRequestSchema, response: CallToolResultSchema }),
};
