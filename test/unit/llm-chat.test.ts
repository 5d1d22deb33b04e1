// The one llm client against a local fake of each wire format: a stand-in for a paid API (no real
// model runs here).
import { afterAll, describe, expect, test } from "bun:test";
import { createChatModel, LlmError, MAX_ANSWER_BYTES } from "../../src/core/llm/chat";

const seen: { path: string; body: any; headers: Headers }[] = [];
let mode: "ok" | "garbage" | "slow" | "500" | "empty" | "huge" | "endless" | "echo" = "ok";
/** More than any answer may be (MAX_ANSWER_BYTES), as one JSON answer. */
const HUGE = "x".repeat(MAX_ANSWER_BYTES + 1);
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    seen.push({ path, body: await req.json(), headers: req.headers });
    if (mode === "slow") await Bun.sleep(2000);
    if (mode === "garbage") return new Response("<html>nope</html>");
    if (mode === "500") return new Response("overloaded", { status: 500 });
    // An upstream that quotes the request's credentials back in its error, as some proxies do.
    if (mode === "echo") return new Response(`invalid credentials: ${req.headers.get("authorization")} ${req.headers.get("x-api-key")}`, { status: 401 });
    if (mode === "huge") return Response.json({ choices: [{ message: { content: HUGE } }] });
    // No length announced: the reader has to stop by itself.
    if (mode === "endless") {
      const chunk = new TextEncoder().encode("y".repeat(64 * 1024));
      return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }));
    }
    const text = mode === "empty" ? "" : `answer from ${path}`;
    if (path === "/api/chat") return Response.json({ message: { role: "assistant", content: text } });
    if (path === "/v1/chat/completions") return Response.json({ choices: [{ message: { content: text } }] });
    if (path === "/v1/messages") return Response.json({ content: [{ type: "text", text }] });
    return new Response("no", { status: 404 });
  },
});
afterAll(() => server.stop(true));
const baseUrl = `http://127.0.0.1:${server.port}`;
const messages = [
  { role: "system" as const, content: "be brief" },
  { role: "user" as const, content: "hi" },
];

describe("createChatModel", () => {
  test("no provider means no llm", () => {
    expect(createChatModel({})).toBeUndefined();
  });

  test.each([
    ["ollama", "/api/chat"],
    ["openai", "/v1/chat/completions"],
    ["anthropic", "/v1/messages"],
  ] as const)("%s speaks its own wire format", async (provider, path) => {
    mode = "ok";
    seen.length = 0;
    const llm = createChatModel({ provider, model: "m1", baseUrl, apiKey: "k-123" })!;
    expect(llm.label).toBe(`${provider}/m1`);
    expect(await llm.complete(messages, { timeoutMs: 5000 })).toBe(`answer from ${path}`);
    expect(seen[0]!.path).toBe(path);
    expect(seen[0]!.body.model).toBe("m1");
    if (provider === "anthropic") {
      expect(seen[0]!.body.system).toBe("be brief");
      expect(seen[0]!.body.messages).toEqual([{ role: "user", content: "hi" }]);
      expect(seen[0]!.headers.get("x-api-key")).toBe("k-123");
    } else {
      expect(seen[0]!.body.messages).toEqual(messages);
    }
    if (provider === "openai") expect(seen[0]!.headers.get("authorization")).toBe("Bearer k-123");
  });

  test("the key falls back to the provider's environment variable", async () => {
    mode = "ok";
    seen.length = 0;
    const llm = createChatModel({ provider: "openai", baseUrl: `${baseUrl}/v1` }, { OPENAI_API_KEY: "env-key" })!;
    await llm.complete(messages, { timeoutMs: 5000 });
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer env-key");
    expect(seen[0]!.body.model).toBe("gpt-4o-mini");
  });

  const failure = async (m: typeof mode, timeoutMs = 5000, url = baseUrl) => {
    mode = m;
    const err = await createChatModel({ provider: "ollama", baseUrl: url })!
      .complete(messages, { timeoutMs })
      .catch((e) => e);
    expect(err).toBeInstanceOf(LlmError);
    return err as LlmError;
  };

  test("each failure has a reason a caller can show", async () => {
    expect((await failure("garbage")).reason).toBe("bad_answer");
    expect((await failure("empty")).reason).toBe("bad_answer");
    const refused = await failure("500");
    expect(refused.reason).toBe("refused");
    expect(refused.message).toContain("500");
    const slow = await failure("slow", 200);
    expect(slow.reason).toBe("timeout");
    expect(slow.message).toContain("did not answer");
    // A port nothing listens on.
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${dead.port}`;
    dead.stop(true);
    expect((await failure("ok", 5000, deadUrl)).reason).toBe("unreachable");
  });

  test("an answer past MAX_ANSWER_BYTES is a bad_answer, whether its length is announced or not", async () => {
    for (const m of ["huge", "endless"] as const) {
      const err = await failure(m);
      expect(err.reason).toBe("bad_answer");
      expect(err.message).toContain("more than 1 MiB");
    }
  });

  test("failures name the url without its user info, and quote no key or password", async () => {
    const port = new URL(baseUrl).port;
    const withAuth = `http://llmuser:S3CRET%2FPW@127.0.0.1:${port}`;
    const messagesOf = async (m: typeof mode, provider: "ollama" | "openai" | "anthropic", url = withAuth) => {
      mode = m;
      const err: unknown = await createChatModel({ provider, baseUrl: url, apiKey: "sk-SUPERSECRETKEY123" })!
        .complete(messages, { timeoutMs: m === "slow" ? 200 : 5000 })
        .catch((e) => e);
      expect(err).toBeInstanceOf(LlmError);
      return (err as LlmError).message;
    };
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const deadUrl = `http://llmuser:S3CRET%2FPW@127.0.0.1:${dead.port}`;
    dead.stop(true);
    const all = [
      await messagesOf("echo", "openai"),
      await messagesOf("echo", "anthropic"),
      await messagesOf("echo", "ollama"),
      await messagesOf("500", "ollama"),
      await messagesOf("garbage", "ollama"),
      await messagesOf("slow", "ollama"),
      await messagesOf("ok", "ollama", deadUrl),
    ];
    for (const message of all) {
      expect(message).toContain("http://127.0.0.1:");
      for (const secret of ["llmuser", "S3CRET", "SUPERSECRET", "sk-"]) expect(message).not.toContain(secret);
    }
    // The quoted body is kept, its secrets redacted: the Bearer key, the key header, the basic auth.
    expect(all[0]).toBe(`the llm at ${baseUrl}/v1/chat/completions answered 401: invalid credentials: Bearer [REDACTED] null`);
    // Anthropic's key goes in x-api-key, so the URL's basic auth is sent too.
    expect(all[1]).toStartWith(`the llm at ${baseUrl}/v1/messages answered 401: invalid credentials: Basic `);
    expect(all[1]).toEndWith(" [REDACTED]");
    expect(all[2]).toStartWith(`the llm at ${baseUrl}/api/chat answered 401: invalid credentials: Basic `);
    expect(all[2]).toContain("[REDACTED]");
  });
});
