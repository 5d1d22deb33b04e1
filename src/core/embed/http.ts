// Embedding providers reached over HTTP: Ollama (`POST /api/embed`) and OpenAI-compatible servers
// (`POST /v1/embeddings`). Both return L2-normalized Float32Arrays, like the builtin model. One model
// makes vectors of one size: an answer of another size is a failure, never stored beside the others.
import { textUpTo } from "../../os/bounded-read";
import { redactText } from "../secrets/redactor";
import { EmbedRejectedError, type Embedder } from "./types";
import { credentialValues, withoutCredentials } from "../secrets/url-credentials";

const REQUEST_TIMEOUT_MS = 30_000;
/**
 * The most of an answer read: ten times a batch of 16 vectors of 8,192 numbers written out in JSON.
 * A provider that answers more (a misconfigured URL, a proxy's page) is failing, and the rest is left
 * unread instead of held whole.
 */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** Statuses that blame the texts sent; 401, 403, 404, 408, 429 and 5xx blame the setup or the moment. */
const REJECTS_INPUT = new Set([400, 413, 422]);

/** `url` without its user name and password: what errors name and embedding_models records. */
export function shownUrl(url: string): string {
  return withoutCredentials(url, "(the configured embedding.baseUrl)");
}

/** How much of a provider's error body an error quotes. */
const QUOTED_CHARS = 200;

/** Why `v` is not a vector to keep, or null when it is one: no value may be infinite or NaN, nor all of them zero. */
function unusable(v: Float32Array): string | null {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  if (!Number.isFinite(norm)) return "a value that is not a finite number";
  if (norm === 0) return "all zeros";
  return null;
}

function normalize(v: Float32Array): Float32Array {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

abstract class HttpEmbedder implements Embedder {
  abstract readonly provider: string;
  /** The size of this model's vectors, when not configured: the stored ones' (expectDimensions) or the first answer's. */
  private learned = 0;
  /** Aborted when the worker stops: a request in flight then ends at once. */
  private readonly stopping = new AbortController();
  private readonly secrets: string[];

  constructor(
    readonly model: string,
    readonly baseUrl: string,
    protected readonly configuredDimensions: number | undefined,
    apiKey?: string,
  ) {
    this.secrets = credentialValues(baseUrl, apiKey);
  }

  get dimensions(): number {
    return this.configuredDimensions ?? this.learned;
  }

  expectDimensions(dimensions: number): void {
    if (this.configuredDimensions === undefined) this.learned = dimensions;
  }

  protected abstract request(texts: string[]): Promise<unknown[]>;

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const raw = await this.request(texts);
    if (raw.length !== texts.length) throw new Error(`${this.provider} returned ${raw.length} vectors for ${texts.length} texts`);
    const vectors = raw.map((r) => {
      if (!Array.isArray(r)) throw new Error(`${this.provider} returned something that is not a vector (${JSON.stringify(r)?.slice(0, 40)})`);
      return Float32Array.from(r as number[]);
    });
    this.checkSizes(vectors);
    // A text whose vector is unusable is refused as its input would be: the worker narrows the batch
    // down to it and sets it aside, instead of storing a vector no query can find.
    vectors.forEach((v, i) => {
      const why = unusable(v);
      if (why) throw new EmbedRejectedError(`${this.provider} returned an unusable vector (${why}) for text ${i + 1} of ${texts.length}`);
    });
    if (this.configuredDimensions === undefined) this.learned = vectors[0]!.length;
    return vectors.map(normalize);
  }

  /** Every vector of the answer is of one size, and of this model's size once that is known. */
  private checkSizes(vectors: Float32Array[]): void {
    const sizes = [...new Set(vectors.map((v) => v.length))];
    if (sizes.length > 1) throw new Error(`${this.provider} returned vectors of mixed sizes (${sizes.join(", ")})`);
    const size = sizes[0]!;
    if (size === 0) throw new Error(`${this.provider} returned empty vectors (no numbers)`);
    if (this.configuredDimensions !== undefined && size !== this.configuredDimensions) {
      throw new Error(`${this.provider} returned ${size}-dimensional vectors; embedding.dimensions says ${this.configuredDimensions}`);
    }
    if (this.learned > 0 && size !== this.learned) {
      throw new Error(
        `${this.provider} returned ${size}-dimensional vectors; ${this.model}'s vectors are ${this.learned}-dimensional ` +
          `(if the model's size did change, set embedding.dimensions to ${size} to re-embed every memory at it)`,
      );
    }
  }

  /** Cancels the request in flight and any later one (the worker is stopping). */
  abort(): void {
    this.stopping.abort();
  }

  async close(): Promise<void> {
    this.abort();
  }

  protected async postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    const shown = `${shownUrl(this.baseUrl)}${path}`;
    // What others wrote (an error body) is quoted without the key or the URL's password, redacted
    // before it is cut so that no secret is left half shown.
    const longest = Math.max(0, ...this.secrets.map((v) => v.length));
    const quoted = (text: string) => redactText(text.slice(0, QUOTED_CHARS + longest), this.secrets).slice(0, QUOTED_CHARS);
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    let res: Response;
    let text: string | null;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.any([timeout, this.stopping.signal]),
      });
      text = await textUpTo(res, MAX_ANSWER_BYTES);
    } catch (err) {
      if (this.stopping.signal.aborted) throw new Error(`the request to ${shown} was cancelled: the embedding worker is stopping`);
      if (timeout.aborted) throw new Error(`${shown} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
      throw new Error(`${shown} could not be reached: ${quoted((err as Error)?.message ?? String(err))}`);
    }
    if (text === null) throw new Error(`${shown} answered more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB (${res.status}): not an embedding answer`);
    if (REJECTS_INPUT.has(res.status)) throw new EmbedRejectedError(`${shown} refused the input (${res.status}): ${quoted(text)}`);
    if (!res.ok) throw new Error(`${shown} answered ${res.status}: ${quoted(text)}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${shown} answered with something that is not JSON`);
    }
  }
}

export class OllamaEmbedder extends HttpEmbedder {
  readonly provider = "ollama";

  constructor(model = "nomic-embed-text", baseUrl = "http://127.0.0.1:11434", dimensions?: number) {
    super(model, baseUrl.replace(/\/+$/, ""), dimensions);
  }

  protected async request(texts: string[]): Promise<unknown[]> {
    const body = (await this.postJson("/api/embed", { model: this.model, input: texts })) as { embeddings?: unknown[] };
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
    super(model, baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""), dimensions, apiKey);
  }

  protected async request(texts: string[]): Promise<unknown[]> {
    const body: Record<string, unknown> = { model: this.model, input: texts, encoding_format: "float" };
    if (this.configuredDimensions) body.dimensions = this.configuredDimensions;
    const headers: Record<string, string> = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
    const res = (await this.postJson("/v1/embeddings", body, headers)) as { data?: { index: number; embedding: unknown }[] };
    if (!Array.isArray(res.data)) throw new Error("the embeddings server answered without a data array");
    return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  }
}
