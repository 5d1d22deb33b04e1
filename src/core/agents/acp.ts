// The ACP relay (docs/api.md#acp-relay): a message posted as a run of the Agent Communication
// Protocol, `POST {base}/runs` with `{agent_name, input: [{role: "user", parts: [{content_type:
// "text/plain", content}]}], mode: "async"}`. The server answers a Run (`run_id`, `status`, `error`)
// or an error `{code, message}`. Async mode: delivered means the server accepted the run.

export interface RelayOutcome {
  status: "delivered" | "failed";
  error: string | null;
  runId: string | null;
}

/** The origin of `url` if `allowed` lists it (origins compared after URL normalisation). */
export function allowedOrigin(url: string, allowed: string[]): boolean {
  const origin = new URL(url).origin;
  return allowed.some((a) => URL.canParse(a) && new URL(a).origin === origin);
}

function describeError(body: unknown): string | null {
  const e = body as { code?: unknown; message?: unknown; error?: { code?: unknown; message?: unknown } | null } | null;
  const inner = e?.error && typeof e.error === "object" ? e.error : e;
  if (inner && typeof inner.message === "string") return typeof inner.code === "string" ? `${inner.code}: ${inner.message}` : inner.message;
  return null;
}

export async function relayToAcp(o: { baseUrl: string; agentName: string; content: string; timeoutMs: number }): Promise<RelayOutcome> {
  const url = `${o.baseUrl.replace(/\/+$/, "")}/runs`;
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        agent_name: o.agentName,
        input: [{ role: "user", parts: [{ content_type: "text/plain", content: o.content }] }],
        mode: "async",
      }),
      // Redirects could lead outside the allowed origins.
      redirect: "manual",
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    body = await response.json().catch(() => null);
  } catch (err) {
    const e = err as Error;
    if (e.name === "TimeoutError") return { status: "failed", error: `timeout: no answer from ${url} within ${o.timeoutMs} ms`, runId: null };
    return { status: "failed", error: `unreachable: ${url}: ${e.message}`, runId: null };
  }
  if (!response.ok) {
    return { status: "failed", error: `HTTP ${response.status}${describeError(body) ? `: ${describeError(body)}` : ""}`, runId: null };
  }
  const run = body as { run_id?: unknown; status?: unknown } | null;
  const runId = typeof run?.run_id === "string" ? run.run_id : null;
  if (runId === null) return { status: "failed", error: `bad answer: ${url} did not answer a run with a run_id`, runId: null };
  if (run!.status === "failed" || run!.status === "cancelled") {
    return { status: "failed", error: `run ${run!.status}${describeError(body) ? `: ${describeError(body)}` : ""}`, runId };
  }
  return { status: "delivered", error: null, runId };
}
