// GET /health: liveness plus what an operator needs to see at a glance.
import { Elysia } from "elysia";
import { CHALLENGE_PARAM, challengeProof } from "../../config/owner-files";
import { invalidInput } from "../../contracts/errors";
import { VERSION } from "../../version";
import type { HealthResponse } from "../../contracts/health";
import type { DaemonContext } from "../context";

const NONCE_MAX = 256;

export function healthRoutes(ctx: DaemonContext) {
  const count = ctx.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM memories WHERE deleted_at IS NULL");
  return new Elysia().get("/health", ({ query }): HealthResponse => {
    let memories: number | null = null;
    try {
      memories = count.get()?.n ?? 0;
    } catch {
      memories = null;
    }
    const { error: _error, ...embedding } = ctx.embeddings.status();
    return {
      status: memories === null ? "degraded" : "ok",
      version: VERSION,
      pid: process.pid,
      uptimeS: Math.round((Date.now() - ctx.startedAt) / 1000),
      port: ctx.port,
      dataDir: ctx.config.dataDir,
      db: { ok: memories !== null, memories },
      embedding,
      ...proofFor(query[CHALLENGE_PARAM], ctx.credentials.instanceKey),
    };
  });
}

function proofFor(nonce: string | undefined, instanceKey: string): { proof?: string } {
  if (nonce === undefined) return {};
  if (nonce.length === 0 || nonce.length > NONCE_MAX) throw invalidInput(`challenge must be 1-${NONCE_MAX} characters`);
  return { proof: challengeProof(instanceKey, nonce) };
}
