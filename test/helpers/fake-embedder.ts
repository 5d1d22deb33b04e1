// A local stand-in for a paid or absent embedding service (OpenAI-compatible and Ollama shapes), so
// tests can take the provider down and bring it back. Its "model" is a bag of words over 256
// dimensions where a few synonyms share a slot, enough to tell vector matches from keyword ones.
// A model named `<name>/<dims>` (e.g. "other/128") is another model: its words land in other slots
// of a space of that size, so its vectors mean nothing next to another model's.
const DIMS = 256;
const SYNONYMS: Record<string, string> = { automobile: "car", vehicle: "car", feline: "cat", kitten: "cat" };

function fakeVector(text: string, model = ""): number[] {
  const other = /^(.+)\/(\d+)$/.exec(model);
  const dims = other ? Number(other[2]) : DIMS;
  const salt = other ? `${other[1]}:` : "";
  const v: number[] = Array.from({ length: dims }, () => 0);
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    v[Number(Bun.hash(salt + word) % BigInt(dims))]! += 1;
  }
  if (!v.some((x) => x > 0)) v[0] = 1;
  return v;
}

export interface FakeEmbedder {
  url: string;
  /** Texts embedded so far, in order. */
  embedded: string[];
  /** The model each request named, in order, with how many texts it carried. */
  requests: { model: string; texts: string[] }[];
  /** Each request is answered this much later (a slow provider). */
  delayMs: number;
  down: boolean;
  /** Texts containing this word make the whole request a 400, as a provider refuses bad input. */
  refuse?: string;
  /** The most requests it has had open at once. */
  maxInFlight: number;
  /** Requests answered 400 so far. */
  refusals: number;
  /** Requests with a text containing this word get no answer until it is cleared (a provider still working on them). */
  stall?: string;
  stop(): Promise<void>;
}

export function startFakeEmbedder(): FakeEmbedder {
  const state: FakeEmbedder = {
    url: "",
    embedded: [],
    requests: [],
    delayMs: 0,
    down: false,
    refusals: 0,
    maxInFlight: 0,
    stop: async () => {
      state.stall = undefined;
      await server.stop(true);
    },
  };
  let inFlight = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (state.down) return new Response("service unavailable", { status: 503 });
      const path = new URL(req.url).pathname;
      const body = (await req.json()) as { input: string | string[]; model?: string };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      state.maxInFlight = Math.max(state.maxInFlight, ++inFlight);
      try {
        return await answer(path, body, input);
      } finally {
        inFlight--;
      }
    },
  });
  async function answer(path: string, body: { model?: string }, input: string[]): Promise<Response> {
    if (state.delayMs > 0) await Bun.sleep(state.delayMs);
    while (state.stall && input.some((t) => t.includes(state.stall!))) await Bun.sleep(10);
    if (state.refuse && input.some((t) => t.includes(state.refuse!))) {
      state.refusals++;
      return Response.json({ error: { message: "input rejected" } }, { status: 400 });
    }
    state.embedded.push(...input);
    state.requests.push({ model: body.model ?? "", texts: input });
    const vectors = input.map((t) => fakeVector(t, body.model));
    if (path === "/api/embed") return Response.json({ embeddings: vectors });
    if (path === "/v1/embeddings") return Response.json({ data: vectors.map((embedding, index) => ({ index, embedding })).reverse() });
    return new Response("not found", { status: 404 });
  }
  state.url = `http://127.0.0.1:${server.port}`;
  return state;
}
