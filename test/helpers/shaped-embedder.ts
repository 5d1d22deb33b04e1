// A local stand-in for a paid or remote embedding provider (Ollama's POST /api/embed and an
// OpenAI-compatible POST /v1/embeddings) whose answers a test shapes: the vectors' size, a vector
// replaced (Infinity, all zeros, empty), every request failing, or requests held unanswered. Its
// "model" is a bag of words where a few synonyms share a slot, so a search by meaning ("kitten")
// finds a memory that never says the word ("My cat loves tuna"). test/helpers/fake-embedder.ts is the
// plain one; this one exists for answers that one cannot give.
const SYNONYMS: Record<string, string> = { kitten: "cat", feline: "cat", cats: "cat", automobile: "car", vehicle: "car" };

function bagOfWords(text: string, dims: number): number[] {
  const v: number[] = Array.from({ length: dims }, () => 0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    v[Number(Bun.hash(word) % BigInt(dims))]! += 1;
  }
  v[dims - 1]! += 0.01;
  return v;
}

interface ShapedRequest {
  path: string;
  texts: string[];
  /** OpenAI's `dimensions`, when the request sent it. */
  dimensions?: number;
  authorization: string | null;
}

export interface ShapedEmbedder {
  url: string;
  /** The vectors' size when the request names none. */
  dims: number;
  /** What is sent for `text` instead of its vector (a size, a value changed); numbers may be Infinity. */
  shape?: (text: string, vector: number[]) => number[];
  /** Every request is answered with this status, its body quoting the request's authorization header. */
  failWith?: number;
  /** Requests for which this is true get no answer until it is cleared (or the fake stops). */
  hold?: (request: ShapedRequest) => boolean;
  requests: ShapedRequest[];
  /** Requests being answered (or held) now. */
  open: number;
  stop(): Promise<void>;
}

/** JSON with Infinity written as a number too large for a double, as a provider's serializer might. */
function withInfinity(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v === Infinity ? "__inf__" : v === -Infinity ? "__-inf__" : v))
    .replaceAll('"__inf__"', "1e999")
    .replaceAll('"__-inf__"', "-1e999");
}

export function startShapedEmbedder(dims = 64): ShapedEmbedder {
  const state: ShapedEmbedder = {
    url: "",
    dims,
    requests: [],
    open: 0,
    stop: async () => {
      state.hold = undefined;
      await server.stop(true);
    },
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      state.open++;
      try {
        return await answer(req);
      } finally {
        state.open--;
      }
    },
  });
  async function answer(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const body = (await req.json()) as { input: string | string[]; dimensions?: number };
    const texts = Array.isArray(body.input) ? body.input : [body.input];
    const authorization = req.headers.get("authorization");
    const request: ShapedRequest = { path, texts, dimensions: body.dimensions, authorization };
    state.requests.push(request);
    while (state.hold?.(request)) await Bun.sleep(10);
    if (state.failWith) return new Response(`upstream failed (authorization was: ${authorization})`, { status: state.failWith });
    const size = body.dimensions ?? state.dims;
    const vectors = texts.map((t) => (state.shape ? state.shape(t, bagOfWords(t, size)) : bagOfWords(t, size)));
    const json =
      path === "/api/embed"
        ? withInfinity({ embeddings: vectors })
        : path === "/v1/embeddings"
          ? withInfinity({ data: vectors.map((embedding, index) => ({ index, embedding })) })
          : null;
    if (json === null) return new Response("not found", { status: 404 });
    return new Response(json, { headers: { "content-type": "application/json" } });
  }
  state.url = `http://127.0.0.1:${server.port}`;
  return state;
}
