// GET /health: liveness plus what an operator needs to see at a glance.
import { CHALLENGE_PARAM, INSTANCE_KEY_HEADER, challengeProof, proofEndpoint, sameSecret } from "../../config/owner-files";
import { invalidInput } from "../../contracts/errors";
import { VERSION } from "../../version";
import { HEALTH_API } from "../../contracts/health";
import type { DaemonContext } from "../context";
import { principalOf } from "../principal";
import { routes, serve } from "../serve";

const NONCE_MAX = 256;
const WILDCARD_BINDS = new Set(["0.0.0.0", "::"]);

export function healthRoutes(ctx: DaemonContext) {
  return routes(
    serve(HEALTH_API.health, async ({ rawQuery, request }) => {
      // A store that cannot answer makes the daemon degraded, not down: /health still answers.
      // A SQLite file deleted or replaced under the daemon is no store either (db/store-file.ts).
      const memories = ctx.stores.lost?.() ? null : await ctx.memory.liveCount().catch(() => null);
      const { error: _error, ...embedding } = ctx.embeddings.status();
      const nonce = rawQuery[CHALLENGE_PARAM];
      return {
        status: memories === null ? "degraded" : "ok",
        version: VERSION,
        uptimeS: Math.round((Date.now() - ctx.startedAt) / 1000),
        db: { ok: memories !== null, memories },
        embedding,
        ...(isOwner(request, ctx.credentials.instanceKey) && { pid: process.pid, port: ctx.port, dataDir: ctx.config.dataDir, store: await storeOf(ctx) }),
        ...(nonce !== undefined && { proof: proofFor(nonce, ctx.credentials.instanceKey, listeningEndpoint(ctx.config.daemon.bind, request, ctx.port)) }),
      };
    }),
  );
}

/** The store and, on a shared one, the daemons sharing it (none listed while it cannot be read). */
async function storeOf(ctx: DaemonContext) {
  const { kind, location } = ctx.stores;
  if (!ctx.roster) return { kind, location };
  const daemons = await ctx.roster.list().catch(() => undefined);
  return { kind, location, ...(daemons && { daemons }) };
}

/**
 * Where the daemon runs is the owner's to know: in local mode any account may call /health, and the
 * port and data directory are what a relay of the daemon's port needs (docs/security.md). The
 * owner's credentials and the tokens it issued count; the challenge does not (it proves the daemon
 * to the caller, not the caller to the daemon).
 */
function isOwner(request: Request, instanceKey: string): boolean {
  const principal = principalOf(request);
  if (principal?.kind === "token" || (principal?.kind === "trusted" && principal.via === "owner")) return true;
  return sameSecret(request.headers.get(INSTANCE_KEY_HEADER), instanceKey);
}

/**
 * The address the proof covers: the one the daemon listens on. A wildcard bind or a host name
 * covers more than one address, so there it is the Host the caller used, which the guard has
 * already checked names this daemon; the port is always the one actually listened on.
 */
function listeningEndpoint(bind: string, request: Request, port: number): string {
  const address = bind.replace(/^\[|\]$/g, "");
  const literal = (/^[\d.]+$/.test(address) || address.includes(":")) && !WILDCARD_BINDS.has(address);
  return proofEndpoint(literal ? address : new URL(request.url).hostname, port);
}

function proofFor(nonce: string, instanceKey: string, endpoint: string): string {
  if (nonce.length === 0 || nonce.length > NONCE_MAX) throw invalidInput(`challenge must be 1-${NONCE_MAX} characters`);
  return challengeProof(instanceKey, nonce, endpoint);
}
