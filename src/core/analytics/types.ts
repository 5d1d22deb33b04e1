// One MCP tool call as the analytics store records it (docs/api.md#analytics).
import type { InvocationSource } from "../../contracts/analytics";

export interface InvocationRecord {
  server: string;
  tool: string;
  /** The real caller; never missing. */
  agentId: string;
  source: InvocationSource;
  latencyMs: number;
  success: boolean;
  errorText?: string;
  /** ISO-8601 UTC with milliseconds; the recorder stamps it when absent. */
  createdAt?: string;
  sessionKey?: string;
  /** For `cli` rows: which client made the call (`cli` or `dashboard`). */
  client?: string;
}

/** What every surface that makes a tool call is handed: record and forget; it never throws or waits. */
export interface InvocationSink {
  record(invocation: InvocationRecord): void;
}
