// The fetch a bridged server's Streamable HTTP transport sends through. A server that answers a POST
// with JSON holding no response to a request the POST carried (another id, a notification, an empty
// batch) will never answer that request: the SDK drops a response to an id it did not send and the
// call would wait out its whole timeout. Such an answer is completed here with an error response to
// each request left unanswered, quoting what the server sent, so the call fails at once and says why.
// Anything else (a stream, a status other than 200, text that is no JSON) reaches the SDK unchanged.

/** How much of the server's answer the error quotes. */
const QUOTED_CHARS = 200;
/** JSON-RPC's "internal error": the server's side failed, not the request. */
const INTERNAL_ERROR = -32603;

type Id = string | number;

/** The ids of the requests (not notifications) in a JSON-RPC message or batch sent as `body`. */
function requestIds(body: unknown): Id[] {
  if (typeof body !== "string") return [];
  let sent: unknown;
  try {
    sent = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: Id[] = [];
  for (const m of Array.isArray(sent) ? sent : [sent]) {
    if (typeof m !== "object" || m === null || typeof (m as { method?: unknown }).method !== "string") continue;
    const id = (m as { id?: unknown }).id;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

function isResponse(m: unknown): m is { id: unknown } {
  return typeof m === "object" && m !== null && "id" in m && ("result" in m || "error" in m);
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function answeringFetch(inner: Fetch = fetch): Fetch {
  return async (url, init) => {
    const response = await inner(url, init);
    const ids = init?.method === "POST" ? requestIds(init.body) : [];
    const type = response.headers.get("content-type") ?? "";
    if (ids.length === 0 || response.status !== 200 || !type.includes("application/json")) return response;
    const text = await response.text();
    // The server's headers go on (the SDK reads its session id there); the length is the new body's.
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    const withBody = (body: string) => new Response(body, { status: response.status, statusText: response.statusText, headers });
    const same = () => withBody(text);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      return same();
    }
    const messages = Array.isArray(answer) ? answer : [answer];
    const answered = new Set(messages.filter(isResponse).map((m) => m.id));
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) return same();
    const quoted = text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
    const errors = missing.map((id) => ({
      jsonrpc: "2.0",
      id,
      error: { code: INTERNAL_ERROR, message: `the server's answer held no response to this request: ${quoted}` },
    }));
    // What the server did send still goes to the SDK, which judges it as before.
    return withBody(JSON.stringify([...messages, ...errors]));
  };
}
