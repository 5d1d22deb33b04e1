// HTTP helpers for talking to a benchmark daemon, loading it with memories, and waiting for its
// embedding backlog to drain.
import { makeGenerator } from "./content";
import { duration } from "./format";
import { runPool } from "./pool";

export const HEADERS = { "content-type": "application/json", accept: "application/json", "x-signet-actor": "bench", "x-signet-actor-type": "script" };
export const GET_HEADERS = { accept: "application/json", "x-signet-actor": "bench" };

export interface Health {
  status: string;
  pid: number;
  db: { ok: boolean; memories: number | null };
  embedding: { provider: string; model: string | null; ok: boolean; pending: number };
}

export async function getHealth(baseUrl: string): Promise<Health> {
  const res = await fetch(`${baseUrl}/health`, { headers: GET_HEADERS, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET /health answered ${res.status}`);
  return (await res.json()) as Health;
}

/** POST a JSON body; returns the status and the parsed body (or the raw text when it is not JSON). */
export async function postJson<T = unknown>(baseUrl: string, path: string, body: unknown): Promise<{ status: number; body: T; text: string }> {
  const res = await fetch(`${baseUrl}${path}`, { method: "POST", headers: HEADERS, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // left as text
  }
  return { status: res.status, body: parsed as T, text };
}

export interface DrainOptions {
  progress: (line: string) => void;
  /** Fail when the backlog has not shrunk for this long (default 180 s). */
  stallTimeoutMs?: number;
  /** How often a progress line is printed (default 5 s). */
  reportEveryMs?: number;
  /** Something to add to the error, e.g. the daemon's log tail. */
  context?: () => string;
}

/**
 * Waits until GET /health shows the embedding provider loaded (model known, ok) and nothing
 * pending, with a progress line (done, rate, ETA). The worker reports pending 0 until its provider
 * has loaded, so "model != null" is part of the condition. Gives up with a clear error when the
 * backlog stops shrinking for `stallTimeoutMs` (a provider that is down, a model that fails to load).
 * Returns at once for provider none.
 */
export async function waitForEmbeddings(baseUrl: string, opts: DrainOptions): Promise<{ ms: number; model: string | null; provider: string }> {
  const stallMs = opts.stallTimeoutMs ?? 180_000;
  const reportMs = opts.reportEveryMs ?? 5000;
  const started = performance.now();
  let h = await getHealth(baseUrl);
  if (h.embedding.provider === "none") return { ms: 0, model: null, provider: "none" };
  let first: { at: number; pending: number } | null = null;
  let best = Infinity;
  let lastProgressAt = performance.now();
  let lastReport = 0;
  for (;;) {
    const { model, ok, pending } = h.embedding;
    const now = performance.now();
    if (model !== null && ok && pending === 0) {
      opts.progress(`embedding: drained (${model}) after ${duration(now - started)}`);
      return { ms: now - started, model, provider: h.embedding.provider };
    }
    if (model !== null) {
      first ??= { at: now, pending };
      if (pending < best) {
        best = pending;
        lastProgressAt = now;
      }
    }
    if (now - lastReport >= reportMs) {
      lastReport = now;
      if (model === null) opts.progress(`embedding: waiting for provider ${h.embedding.provider} to load (${duration(now - started)})`);
      else {
        const done = first!.pending - pending;
        const rate = done / ((now - first!.at) / 1000);
        const eta = rate > 0 ? duration((pending / rate) * 1000) : "?";
        opts.progress(
          `embedding: ${pending.toLocaleString("en-US")} pending, ${Math.max(0, done).toLocaleString("en-US")} done, ` +
            `${rate > 0 ? rate.toFixed(0) : "?"}/s, ETA ${eta}${ok ? "" : " (provider not ok: retrying)"}`,
        );
      }
    }
    if (now - lastProgressAt > stallMs) {
      const extra = opts.context?.() ?? "";
      throw new Error(
        `embeddings did not drain: provider ${h.embedding.provider}, model ${model ?? "(not loaded)"}, ok ${ok}, ` +
          `${pending} pending, no progress for ${duration(stallMs)}. Is the provider reachable?${extra ? `\n${extra}` : ""}`,
      );
    }
    await Bun.sleep(1000);
    h = await getHealth(baseUrl);
  }
}

/** `count` memories of the synthetic corpus (scripts/lib/content.ts, seed 1) remembered by 8 clients; throws when any fails. */
export async function rememberSynthetic(baseUrl: string, count: number): Promise<void> {
  const gen = makeGenerator(1);
  const bodies = Array.from({ length: count }, () => JSON.parse(gen()) as Record<string, unknown>);
  const load = await runPool(bodies.length, 8, async (i) => (await postJson(baseUrl, "/api/memory/remember", bodies[i])).status < 300);
  if (load.errors > 0) throw new Error(`${load.errors} remembers failed`);
}
