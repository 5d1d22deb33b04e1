// GET /health: liveness plus what an operator needs at a glance (docs/api.md#health).
import type { EmbeddingStatus } from "./embed";

export interface HealthResponse {
  status: "ok" | "degraded";
  version: string;
  pid: number;
  uptimeS: number;
  port: number;
  dataDir: string;
  db: { ok: boolean; memories: number | null };
  /** The worker's status without `error`: /health says whether the provider is ok, not why. */
  embedding: Omit<EmbeddingStatus, "error">;
  /** With `?challenge=<nonce>`: HMAC-SHA256(instance key, nonce), so a client knows it reached its own daemon. */
  proof?: string;
}
