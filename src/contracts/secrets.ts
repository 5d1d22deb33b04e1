// The secret store and secret exec contracts (docs/api.md#secrets), shared by the routes, the MCP
// tools and the CLI. No answer here ever carries a secret's value: names, timestamps, and the
// redacted output of jobs.
import { z } from "zod";

/** Names are environment-variable shaped, so a bare name is also a valid reference and env name. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const SECRET_NAME_RULE = "1-128 letters, digits and _, not starting with a digit";
/** The largest value the store takes (a certificate or a key file fits). */
const SECRET_VALUE_MAX_BYTES = 64 * 1024;

export const DEFAULT_EXEC_TIMEOUT_SECONDS = 300;
const MAX_EXEC_TIMEOUT_SECONDS = 1800;
const COMMAND_MAX_CHARS = 64 * 1024;
const MAX_INJECTED = 64;
const REFERENCE_MAX_CHARS = 1024;
/** The job's environment is PATH, HOME, LANG and the injected secrets: those three keep their meaning. */
const RESERVED_ENV_NAMES = ["PATH", "HOME", "LANG"] as const;

export const SecretNameSchema = z
  .string()
  .regex(SECRET_NAME, `a secret name is ${SECRET_NAME_RULE}`);

export const SetSecretRequestSchema = z
  .object({
    value: z
      .string()
      .min(1, "must not be empty")
      .refine((v) => Buffer.byteLength(v) <= SECRET_VALUE_MAX_BYTES, `must be at most ${SECRET_VALUE_MAX_BYTES} bytes`),
  })
  .strict();

export interface SecretInfo {
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface SecretListResponse {
  secrets: SecretInfo[];
}

export interface SetSecretResponse extends SecretInfo {
  /** False when an existing secret's value was replaced. */
  created: boolean;
}

export interface RemoveSecretResponse {
  name: string;
  removed: true;
}

/** `NAME`, `local://NAME`, `bw://ITEM[/FIELD]`, `op://VAULT/ITEM/FIELD` (docs/api.md#references). */
const ReferenceSchema = z
  .string()
  .min(1, "must not be empty")
  .max(REFERENCE_MAX_CHARS, `must be at most ${REFERENCE_MAX_CHARS} characters`);

export const ExecRequestSchema = z
  .object({
    command: z.string().min(1, "must not be empty").max(COMMAND_MAX_CHARS, `must be at most ${COMMAND_MAX_CHARS} characters`),
    secrets: z
      .record(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable name is letters, digits and _, not starting with a digit")
          .refine((k) => !(RESERVED_ENV_NAMES as readonly string[]).includes(k), `must not be one of ${RESERVED_ENV_NAMES.join(", ")}`),
        ReferenceSchema,
      )
      .refine((s) => Object.keys(s).length <= MAX_INJECTED, `at most ${MAX_INJECTED} secrets per command`),
    timeoutSeconds: z
      .number()
      .positive("must be more than 0")
      .max(MAX_EXEC_TIMEOUT_SECONDS, `must be at most ${MAX_EXEC_TIMEOUT_SECONDS} (30 minutes)`)
      .optional(),
  })
  .strict();
export type ExecRequest = z.infer<typeof ExecRequestSchema>;

export type ExecStatus = "queued" | "running" | "completed" | "failed" | "interrupted";

/** POST /api/secrets/exec answers 202 with this. */
export interface ExecAccepted {
  id: string;
  status: ExecStatus;
  timeoutMs: number;
}

export interface ExecJob extends ExecAccepted {
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Once finished: the command's output with every injected value redacted. */
  stdout?: string;
  stderr?: string;
  /** The shell's exit code; null when it was ended by a signal. */
  exitCode?: number | null;
  timedOut?: boolean;
  /** Output beyond the cap (per stream) was dropped. */
  outputTruncated?: boolean;
  /** Why a failed or interrupted job did not run to its end. */
  error?: string;
}
