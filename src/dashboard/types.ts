// The slices of the API's answers the pages read (docs/api.md).
export interface Memory {
  id: string;
  content: string;
  type: string;
  importance: number;
  tags: string[];
  pinned: boolean;
  who: string | null;
  project: string | null;
  createdAt: string;
  updatedAt?: string;
  version?: number;
  deletedAt?: string | null;
  deleteReason?: string | null;
  score?: number;
  matchedBy?: string;
  history?: { version: number; action: string; content: string; reason: string | null; actor: string | null; createdAt: string }[];
}

export interface Session {
  key: string;
  agentId: string;
  harness: string | null;
  project: string | null;
  startedAt: string;
  updatedAt: string;
  endedAt: string | null;
  bypassed: boolean;
}

export interface Health {
  status: string;
  version: string;
  uptimeS?: number;
  dataDir?: string;
  db?: { ok: boolean; memories: number | null };
  embedding?: { provider: string; model: string | null; ok: boolean; pending: number; rejected?: number; reindex?: { state: string; done: number; total: number } };
}

interface ToolRow {
  server: string;
  tool: string;
  calls: number;
  successCount: number;
  failureCount: number;
  p50: number | null;
  p95: number | null;
}

export interface Analytics {
  totalCalls: number;
  successCount: number;
  failureCount: number;
  failureRate: number;
  latency: { p50: number | null; p95: number | null };
  topServers: { server: string; calls: number; failures: number; p50: number | null; p95: number | null }[];
  topTools: ToolRow[];
  agents: { agentId: string; calls: number; failures: number }[];
  timeline: { day: string; server: string; calls: number; failures: number }[];
}

export interface McpServer {
  name: string;
  transport: { type: string; command?: string; args?: string[]; url?: string };
  enabled: boolean;
  description: string | null;
  running?: boolean;
}
