// How the secret exec tools answer (docs/mcp.md#secrets): the job as the daemon gives it (its output
// already redacted there), and a text rendering for the model.
import { z } from "zod";
import type { ExecJob } from "../contracts/secrets";

const status = z.enum(["queued", "running", "completed", "failed", "interrupted"]);

/** A job, queued or finished; fields beyond the queued answer appear once it has them. */
export const SECRET_JOB_OUTPUT = {
  id: z.string(),
  status,
  timeoutMs: z.number(),
  createdAt: z.string().optional(),
  startedAt: z.string().nullable().optional(),
  finishedAt: z.string().nullable().optional(),
  stdout: z.string().optional().describe("Redacted standard output"),
  stderr: z.string().optional().describe("Redacted standard error"),
  exitCode: z.number().nullable().optional().describe("The command's exit code; null when a signal ended it"),
  timedOut: z.boolean().optional(),
  outputTruncated: z.boolean().optional(),
  error: z.string().optional().describe("Why a failed or interrupted job did not run to its end"),
};

export function secretJobText(job: ExecJob): string {
  if (job.status === "queued" || job.status === "running") return `Job ${job.id} is ${job.status}; poll again shortly.`;
  const lines = [`Job ${job.id}: ${job.status}`];
  if (job.error) lines.push(`error: ${job.error}`);
  if (job.status === "completed") {
    lines.push(`exit code: ${job.exitCode === null ? "none (ended by a signal)" : job.exitCode}${job.timedOut ? ", timed out" : ""}`);
  }
  if (job.stdout) lines.push(`stdout:\n${job.stdout}`);
  if (job.stderr) lines.push(`stderr:\n${job.stderr}`);
  if (job.outputTruncated) lines.push("(output beyond the size limit was dropped)");
  return lines.join("\n");
}
