// Embedding providers reached over HTTP: Ollama (`POST /api/embed`) and OpenAI-compatible servers
// (`POST /v1/embeddings`). Both return L2-normalized Float32Arrays, like the builtin model.
import { EmbedRejectedError, type Embedder } from "./types";

const REQUEST_TIMEOUT_MS = 30_000;
/** Statuses that blame the texts sent; 401, 403, 404, 408, 429 and 5xx blame the setup or the moment. */
const REJECTS_INPUT = new Set([400, 413, 422]);

function normalize(values: ArrayLike<number>): Float32Array {
  const v = Float32Array.from(values);
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  if (REJECTS_INPUT.has(res.status)) throw new EmbedRejectedError(`${url} refused the input (${res.status}): ${text.slice(0, 200)}`);
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${url} answered with something that is not JSON`);
  }
}

abstract class HttpEmbedder implements Embedder {
  abstract readonly provider: string;
  private learned = 0;

  constructor(
    readonly model: string,
    readonly baseUrl: string,
    protected readonly configuredDimensions: number | undefined,
  ) {}

  get dimensions(): number {
    return this.configuredDimensions ?? this.learned;
  }

  protected abstract request(texts: string[]): Promise<number[][]>;

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const raw = await this.request(texts);
    if (raw.length !== texts.length) throw new Error(`${this.provider} returned ${raw.length} vectors for ${texts.length} texts`);
    const vectors = raw.map(normalize);
    const dims = vectors[0]!.length;
    if (vectors.some((v) => v.length !== dims || v.length === 0)) throw new Error(`${this.provider} returned vectors of mixed sizes`);
    if (this.configuredDimensions !== undefined && dims !== this.configuredDimensions) {
      throw new Error(`${this.provider} returned ${dims}-dimensional vectors; embedding.dimensions says ${this.configuredDimensions}`);
    }
    this.learned = dims;
    return vectors;
  }

  async close(): Promise<void> {}
}

export class OllamaEmbedder extends HttpEmbedder {
  readonly provider = "ollama";

  constructor(model = "nomic-embed-text", baseUrl = "http://127.0.0.1:11434", dimensions?: number) {
    super(model, baseUrl.replace(/\/+$/, ""), dimensions);
  }

  protected async request(texts: string[]): Promise<number[][]> {
    const body = (await postJson(`${this.baseUrl}/api/embed`, { model: this.model, input: texts })) as { embeddings?: number[][] };
    if (!Array.isArray(body.embeddings)) throw new Error("ollama answered without an embeddings array");
    return body.embeddings;
  }
}

export class OpenAiEmbedder extends HttpEmbedder {
  readonly provider = "openai";

  constructor(
    model = "text-embedding-3-small",
    baseUrl = "https://api.openai.com",
    dimensions: number | undefined,
    private readonly apiKey: string | undefined,
  ) {
    super(model, baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""), dimensions);
  }

  protected async request(texts: string[]): Promise<number[][]> {
    const body: Record<string, unknown> = { model: this.model, input: texts, encoding_format: "float" };
    if (this.configuredDimensions) body.dimensions = this.configuredDimensions;
    const headers: Record<string, string> = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
    const res = (await postJson(`${this.baseUrl}/v1/embeddings`, body, headers)) as { data?: { index: number; embedding: number[] }[] };
    if (!Array.isArray(res.data)) throw new Error("the embeddings server answered without a data array");
    return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  }
}
