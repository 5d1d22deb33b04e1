// The secret store and secret exec contracts (docs/api.md#secrets), shared by the routes, the MCP
// tools and the CLI. No answer here ever carries a secret's value: names, timestamps, and the
// redacted output of jobs.
import { z } from "zod";
import { answer } from "./answer";
import { namedRecord } from "./named-record";
import { operation } from "./operation";
import { ROUTES } from "./routes";
/** The largest value the store takes (a PEM certificate or key fits; binary data goes in as base64). */
const SECRET_VALUE_MAX_BYTES = 64 * 1024;

export const DEFAULT_EXEC_TIMEOUT_SECONDS = 300;
const MAX_EXEC_TIMEOUT_SECONDS = 1800;
const COMMAND_MAX_CHARS = 64 * 1024;
const MAX_INJECTED = 64;
const REFERENCE_MAX_CHARS = 1024;
/** The shortest timeout a job can have: less would round to no time at all. */
const MIN_EXEC_TIMEOUT_SECONDS = 0.001;
/**
 * The job's environment is PATH, HOME, LANG, the marker that tracks its processes
 * (core/bridge/server-processes.ts MARKER_ENV) and the injected secrets: the first four keep their meaning.
 */
const RESERVED_ENV_NAMES = ["PATH", "HOME", "LANG", "SIGNET_BRIDGE_SERVER"] as const;
/** A process's environment and argv are C strings: a NUL byte would end the value early, so spawning refuses it. */
const NO_NUL = (v: string) => !v.includes("\0");

const SetSecretRequestSchema = z
  .object({
    value: z
      .string()
      .min(1, "must not be empty")
      .refine((v) => Buffer.byteLength(v) <= SECRET_VALUE_MAX_BYTES, `must be at most ${SECRET_VALUE_MAX_BYTES} bytes`)
      .refine(NO_NUL, "must not contain a NUL byte: it is injected as an environment variable, which cannot carry one (binary data goes in as base64)"),
  })
  .strict();

const secretInfo = { name: z.string(), createdAt: z.string(), updatedAt: z.string() };
const SecretInfoSchema = answer(secretInfo);
export type SecretInfo = z.infer<typeof SecretInfoSchema>;

const SecretListResponseSchema = answer({ secrets: z.array(SecretInfoSchema) });

const SetSecretResponseSchema = answer({
  ...secretInfo,
  created: z.boolean().describe("False when an existing secret's value was replaced"),
});

const RemoveSecretResponseSchema = answer({ name: z.string(), removed: z.literal(true) });

/** `NAME`, `local://NAME`, `bw://ITEM[/FIELD]`, `op://VAULT/ITEM/FIELD` (docs/api.md#references). */
const ReferenceSchema = z
  .string()
  .min(1, "must not be empty")
  .max(REFERENCE_MAX_CHARS, `must be at most ${REFERENCE_MAX_CHARS} characters`);

const ExecRequestSchema = z
  .object({
    command: z
      .string()
      .min(1, "must not be empty")
      .max(COMMAND_MAX_CHARS, `must be at most ${COMMAND_MAX_CHARS} characters`)
      .refine(NO_NUL, "must not contain a NUL byte"),
    secrets: namedRecord(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable name is letters, digits and _, not starting with a digit"),
      ReferenceSchema,
    )
      .refine((s) => Object.keys(s).length <= MAX_INJECTED, `at most ${MAX_INJECTED} secrets per command`)
      // On the record, not its keys: zod reports a refused key as "Invalid key in record", without saying why.
      .superRefine((s, ctx) => {
        for (const name of Object.keys(s)) {
          if ((RESERVED_ENV_NAMES as readonly string[]).includes(name)) {
            ctx.addIssue({ code: "custom", path: [name], message: `must not be one of ${RESERVED_ENV_NAMES.join(", ")}: the daemon sets those itself` });
          }
        }
      }),
    timeoutSeconds: z
      .number()
      .min(MIN_EXEC_TIMEOUT_SECONDS, `must be at least ${MIN_EXEC_TIMEOUT_SECONDS} (1 ms)`)
      .max(MAX_EXEC_TIMEOUT_SECONDS, `must be at most ${MAX_EXEC_TIMEOUT_SECONDS} (30 minutes)`)
      .optional(),
  })
  .strict();
export type ExecRequest = z.infer<typeof ExecRequestSchema>;

const ExecStatusSchema = z.enum(["queued", "running", "completed", "failed", "interrupted"]);
export type ExecStatus = z.infer<typeof ExecStatusSchema>;

const execAccepted = { id: z.string(), status: ExecStatusSchema, timeoutMs: z.number() };

/** What queuing a job answers (202). */
const ExecAcceptedSchema = answer(execAccepted);
export type ExecAccepted = z.infer<typeof ExecAcceptedSchema>;

/** A job, queued or finished; the fields after `finishedAt` appear once it has them. */
const ExecJobSchema = answer({
  ...execAccepted,
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  stdout: z.string().optional().describe("Once finished: standard output, every injected value redacted"),
  stderr: z.string().optional().describe("Once finished: standard error, every injected value redacted"),
  exitCode: z.number().nullable().optional().describe("The command's exit code; null when a signal ended it"),
  timedOut: z.boolean().optional(),
  outputTruncated: z.boolean().optional().describe("Output beyond the cap (per stream) was dropped"),
  error: z.string().optional().describe("Why a failed or interrupted job did not run to its end"),
});
export type ExecJob = z.infer<typeof ExecJobSchema>;

/**
 * The secrets API (docs/api.md#secrets). Listing and running need the instance key (signet-mcp has
 * it) or the admin token; setting and removing need the admin token.
 */
export const SECRETS_API = {
  list: operation(ROUTES.secrets.list, { response: SecretListResponseSchema }),
  set: operation(ROUTES.secrets.set, { input: "secret", body: SetSecretRequestSchema, response: SetSecretResponseSchema }),
  remove: operation(ROUTES.secrets.remove, { response: RemoveSecretResponseSchema }),
  /** Queues the job and answers 202; its output comes from `status`. */
  exec: operation(ROUTES.secrets.exec, { input: "exec request", body: ExecRequestSchema, response: ExecAcceptedSchema }),
  status: operation(ROUTES.secrets.status, { response: ExecJobSchema }),
};
