// The configured `llm` (docs/config.md#llm): one chat call, used by aggregate recall and by
// session-end extraction. Three wire formats: Ollama `POST /api/chat`, OpenAI-compatible
// `POST /v1/chat/completions`, Anthropic `POST /v1/messages`. Every failure is an LlmError whose
// `reason` a caller can show ("fell back to extractive: the llm timed out after 60 s"). Those reasons
// reach any caller of a recall (a readonly token too) and the log, so they name the llm's URL
// without its user name and password, and quote its error body with the key and password redacted.
import type { Config } from "../../config/schema";
import { textUpTo } from "../../os/bounded-read";
import { redactText } from "../secrets/redactor";
import { credentialValues, withoutCredentials } from "../secrets/url-credentials";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

interface ChatOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** An upper bound on the answer's length, for providers that take one. */
  maxTokens?: number;
}

export interface ChatModel {
  /** "ollama/llama3.2": what meta and notes name. */
  readonly label: string;
  complete(messages: ChatMessage[], options: ChatOptions): Promise<string>;
}

export type LlmFailure = "unreachable" | "timeout" | "refused" | "bad_answer";

export class LlmError extends Error {
  constructor(
    readonly reason: LlmFailure,
    message: string,
  ) {
    super(message);
    this.name = "LlmError";
  }
}

/**
 * The most of an answer read, in bytes: far above what any maxTokens asked for here (2,000 tokens are
 * about 8 KB of text), so only a runaway or hostile server reaches it; past it the call fails.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** The most of an error body quoted in a failure's message. */
const QUOTED_ERROR_CHARS = 200;

type LlmConfig = Config["llm"];
type Provider = NonNullable<LlmConfig["provider"]>;

const DEFAULTS: Record<Provider, { model: string; baseUrl: string; keyEnv?: string }> = {
  ollama: { model: "llama3.2", baseUrl: "http://127.0.0.1:11434" },
  openai: { model: "gpt-4o-mini", baseUrl: "https://api.openai.com", keyEnv: "OPENAI_API_KEY" },
  anthropic: { model: "claude-3-5-haiku-latest", baseUrl: "https://api.anthropic.com", keyEnv: "ANTHROPIC_API_KEY" },
};

/** The chat model `llm` configures, or undefined when none is (the offline default). */
export function createChatModel(config: LlmConfig, env: Record<string, string | undefined> = process.env): ChatModel | undefined {
  const provider = config.provider;
  if (!provider) return undefined;
  const d = DEFAULTS[provider];
  const model = config.model ?? d.model;
  const baseUrl = (config.baseUrl ?? d.baseUrl).replace(/\/+$/, "").replace(/\/v1$/, "");
  const apiKey = config.apiKey ?? (d.keyEnv ? env[d.keyEnv] : undefined);
  const label = `${provider}/${model}`;
  const secrets = credentialValues(baseUrl, apiKey);
  const send = (path: string, body: unknown, headers: Record<string, string>, options: ChatOptions) =>
    postChat({ url: `${baseUrl}${path}`, shown: withoutCredentials(`${baseUrl}${path}`, "(the configured llm.baseUrl)"), secrets }, body, headers, options);
  switch (provider) {
    case "ollama":
      return {
        label,
        complete: async (messages, options) =>
          textAt(await send("/api/chat", { model, messages, stream: false }, {}, options), ["message", "content"]),
      };
    case "openai":
      return {
        label,
        complete: async (messages, options) =>
          textAt(
            await send(
              "/v1/chat/completions",
              { model, messages, ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}) },
              apiKey ? { authorization: `Bearer ${apiKey}` } : {},
              options,
            ),
            ["choices", 0, "message", "content"],
          ),
      };
    case "anthropic":
      return {
        label,
        complete: async (messages, options) => {
          const system = messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
          const body = {
            model,
            max_tokens: options.maxTokens ?? 1024,
            ...(system ? { system } : {}),
            messages: messages.filter((m) => m.role !== "system"),
          };
          const headers: Record<string, string> = { "anthropic-version": "2023-06-01", ...(apiKey ? { "x-api-key": apiKey } : {}) };
          return textAt(await send("/v1/messages", body, headers, options), ["content", 0, "text"]);
        },
      };
  }
}

/** Where a call goes: the URL fetched, the URL its errors name, and what they never quote. */
interface Endpoint {
  url: string;
  shown: string;
  secrets: string[];
}

async function postChat(to: Endpoint, body: unknown, headers: Record<string, string>, options: ChatOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  // What others wrote (an error body, a fetch error) is quoted with the secrets redacted.
  const quoted = (text: string) => redactText(text, to.secrets);
  let res: Response;
  let text: string | null;
  try {
    res = await fetch(to.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal });
    text = await textUpTo(res, MAX_ANSWER_BYTES);
  } catch (err) {
    if (timeout.aborted) throw new LlmError("timeout", `the llm at ${to.shown} did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
    if (options.signal?.aborted) throw new LlmError("unreachable", `the call to the llm at ${to.shown} was cancelled`);
    throw new LlmError("unreachable", `the llm at ${to.shown} could not be reached: ${quoted((err as Error).message)}`);
  }
  const tooLong = `more than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`;
  // Redacted whole, then cut: a cut cannot leave the start of a secret.
  if (!res.ok) throw new LlmError("refused", `the llm at ${to.shown} answered ${res.status}: ${text === null ? `(${tooLong})` : quoted(text).slice(0, QUOTED_ERROR_CHARS)}`);
  if (text === null) throw new LlmError("bad_answer", `the llm at ${to.shown} answered ${tooLong}, far more than any answer asked of it`);
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmError("bad_answer", `the llm at ${to.shown} answered with something that is not JSON`);
  }
}

/** The non-empty string at `path` in a parsed answer, or a bad_answer error naming what was missing. */
function textAt(answer: unknown, path: (string | number)[]): string {
  let at: unknown = answer;
  for (const key of path) at = at !== null && typeof at === "object" ? (at as Record<string | number, unknown>)[key] : undefined;
  if (typeof at !== "string" || at.trim() === "") {
    throw new LlmError("bad_answer", `the llm's answer has no text at ${path.join(".")}`);
  }
  return at;
}
