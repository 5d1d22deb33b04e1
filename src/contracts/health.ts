// GET /health: liveness plus what an operator needs at a glance (docs/api.md#health).
import type { ReindexStatus } from "./embed";

export interface HealthResponse {
  status: "ok" | "degraded";
  version: string;
  pid: number;
  uptimeS: number;
  port: number;
  dataDir: string;
  db: { ok: boolean; memories: number | null };
  embedding: { provider: string; model: string | null; ok: boolean; pending: number; rejected?: number; reindex?: ReindexStatus };
  /** With `?challenge=<nonce>`: HMAC-SHA256(instance key, nonce), so a client knows it reached its own daemon. */
  proof?: string;
}
