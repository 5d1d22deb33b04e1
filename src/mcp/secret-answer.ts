// How the secret exec tools answer (docs/mcp.md#secrets): the job as the daemon gives it (its output
// already redacted there) as structuredContent, and this text rendering for the model.
import type { ExecJob } from "../contracts/secrets";

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
