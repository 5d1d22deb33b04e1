// A small local stand-in for Anthropic's Messages API, so the real Claude Code CLI can run offline
// in tests (a mock only because the real API is a paid service out of reach here). It answers
// POST /v1/messages, streamed as server-sent events when asked (as Claude Code asks) and as one
// JSON message otherwise, and records every request it received. What it answers is up to the
// test: a text, or a tool call the model "decides" to make.
interface RecordedRequest {
  path: string;
  body: any;
  /** The body as received: what a test searches for injected text. */
  raw: string;
}

export type FakeAnswer = { text: string } | { toolUse: { name: string; input: Record<string, unknown> } };

export interface FakeAnthropic {
  url: string;
  requests: RecordedRequest[];
  /** The requests to /v1/messages that carry tools: the main conversation's turns, not side calls. */
  turns(): RecordedRequest[];
  stop(): Promise<void>;
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function stream(answer: FakeAnswer, model: string, n: number): string {
  const message = { id: `msg_fake_${n}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } };
  const parts = [sse("message_start", { type: "message_start", message })];
  if ("text" in answer) {
    parts.push(sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    parts.push(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: answer.text } }));
  } else {
    const block = { type: "tool_use", id: `toolu_fake_${n}`, name: answer.toolUse.name, input: {} };
    parts.push(sse("content_block_start", { type: "content_block_start", index: 0, content_block: block }));
    parts.push(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(answer.toolUse.input) } }));
  }
  parts.push(sse("content_block_stop", { type: "content_block_stop", index: 0 }));
  const stop = "text" in answer ? "end_turn" : "tool_use";
  parts.push(sse("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }));
  parts.push(sse("message_stop", { type: "message_stop" }));
  return parts.join("");
}

function whole(answer: FakeAnswer, model: string, n: number): unknown {
  const content =
    "text" in answer ? [{ type: "text", text: answer.text }] : [{ type: "tool_use", id: `toolu_fake_${n}`, name: answer.toolUse.name, input: answer.toolUse.input }];
  return {
    id: `msg_fake_${n}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: "text" in answer ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** Starts the fake on a free loopback port; `answer` decides each reply from the request body. */
export function startFakeAnthropic(answer: (body: any) => FakeAnswer): FakeAnthropic {
  const requests: RecordedRequest[] = [];
  let n = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const raw = req.method === "POST" ? await req.text() : "";
      let body: any = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      requests.push({ path: url.pathname, body, raw });
      if (url.pathname === "/v1/messages/count_tokens") return Response.json({ input_tokens: 100 });
      if (url.pathname !== "/v1/messages" || req.method !== "POST") return Response.json({ type: "error", error: { type: "not_found_error", message: "not here" } }, { status: 404 });
      n++;
      const reply = answer(body ?? {});
      const model = String(body?.model ?? "claude-fake");
      if (body?.stream) return new Response(stream(reply, model, n), { headers: { "content-type": "text/event-stream" } });
      return Response.json(whole(reply, model, n));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    turns: () => requests.filter((r) => r.path === "/v1/messages" && Array.isArray(r.body?.tools) && r.body.tools.length > 0),
    stop: () => server.stop(true),
  };
}

/** The text of the last user message of a request (its string content or text blocks). */
export function lastUserText(body: any): string {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = [...messages].reverse().find((m) => m?.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content ?? []).map((b: any) => (typeof b?.text === "string" ? b.text : "")).join("\n");
}

/** The tool_result blocks sent back in a request, as text. */
export function toolResults(body: any): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (!Array.isArray(m?.content)) continue;
    for (const b of m.content) {
      if (b?.type !== "tool_result") continue;
      out.push(typeof b.content === "string" ? b.content : (b.content ?? []).map((c: any) => c?.text ?? "").join("\n"));
    }
  }
  return out;
}

const CLAUDE = `${import.meta.dir}/../../node_modules/.bin/claude`;

/**
 * The real Claude Code CLI, `claude -p <prompt> --output-format json`, against `fake`, with `env`
 * (the sandbox's HOME and PATH) and no traffic anywhere else; with the requests it sent the fake.
 */
export async function claudePrint(fake: FakeAnthropic, opts: { prompt: string; cwd: string; env: Record<string, string>; extra?: string[]; timeoutMs: number }) {
  const before = fake.requests.length;
  const proc = Bun.spawn([CLAUDE, "-p", opts.prompt, "--output-format", "json", ...(opts.extra ?? [])], {
    cwd: opts.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: opts.timeoutMs,
    env: {
      ...opts.env,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "sk-ant-test-dummy",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // Signet's tools are offered up front, not behind Claude Code's tool search.
      ENABLE_TOOL_SEARCH: "false",
    },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr, requests: fake.requests.slice(before) };
}
