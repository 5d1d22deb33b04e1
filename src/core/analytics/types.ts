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

/** What a row needs to be counted; the recorder's queued rows carry more. */
export type ColumnRow = Pick<InvocationRecord, "server" | "tool" | "agentId" | "source" | "latencyMs" | "success"> & {
  createdMs: number;
};

/** A row the recorder holds until it is written. */
export interface QueuedInvocation extends ColumnRow {
  errorText: string | null;
  createdAt: string;
  sessionKey: string | null;
  client: string | null;
  attempts: number;
}
