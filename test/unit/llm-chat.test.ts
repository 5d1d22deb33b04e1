// The one llm client against a local fake of each wire format (no real model runs here).
import { afterAll, describe, expect, test } from "bun:test";
import { createChatModel, LlmError } from "../../src/core/llm/chat";

const seen: { path: string; body: any; headers: Headers }[] = [];
let mode: "ok" | "garbage" | "slow" | "500" | "empty" = "ok";
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const path = new URL(req.url).pathname;
    seen.push({ path, body: await req.json(), headers: req.headers });
    if (mode === "slow") await Bun.sleep(2000);
    if (mode === "garbage") return new Response("<html>nope</html>");
    if (mode === "500") return new Response("overloaded", { status: 500 });
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
});
