// Unbounded nesting, against a real daemon: `structured` is bounded in depth (32) and size (64 KiB),
// a request body nested past 512 levels is refused before anything recursive touches it (on the API
// and on /mcp), and `__proto__` keys in `structured` are stored and returned exactly. Each test acts
// as its own agent, so "nothing stored" is checked against that agent's list alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon();
});

afterAll(async () => {
  await td.stop();
});

interface Res {
  status: number;
  body: any;
}

/** POSTs raw JSON text: the deep bodies and `__proto__` keys here cannot be built as JS objects. */
async function post(path: string, body: string, agent: string, headers: Record<string, string> = {}): Promise<Res> {
  const res = await td.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-signet-agent-id": agent, ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}

const remember = (agent: string, structuredText: string) =>
  post("/api/memory/remember", `{"content":"nested ${crypto.randomUUID()}","structured":${structuredText}}`, agent);

async function get(path: string, agent: string): Promise<Res> {
  const res = await td.fetch(path, { headers: { "x-signet-agent-id": agent } });
  return { status: res.status, body: await res.json() };
}

async function listed(agent: string): Promise<any[]> {
  const res = await get("/api/memories", agent);
  expect(res.status).toBe(200);
  return res.body.memories;
}

/** JSON text `depth` levels deep: objects around an innermost array. */
function nestedText(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}[1,"x"]${"}".repeat(depth - 1)}`;
}

function expectInvalid(res: Res, ...mentions: string[]): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: "invalid_input" });
  for (const m of mentions) expect(res.body.error).toContain(m);
}

/** /health, timed: it must keep answering while deep bodies are being refused. */
async function timedHealth(): Promise<number> {
  const started = performance.now();
  const res = await td.fetch("/health");
  expect(res.status).toBe(200);
  expect(((await res.json()) as any).status).toBe("ok");
  return performance.now() - started;
}

// Generous: an unbounded body used to take about a second of stack unwinding, or to hang.
const PROMPT_MS = 2000;

describe("structured: at most 32 levels and 64 KiB", () => {
  test("up to 32 levels round trips; deeper is refused with 400 naming the field, and nothing is stored", async () => {
    const agent = "nest-depth";
    for (const depth of [10, 32]) {
      const created = await remember(agent, nestedText(depth));
      expect(created.status).toBe(201);
      const fetched = await get(`/api/memory/${created.body.id}`, agent);
      expect(JSON.stringify(fetched.body.structured)).toBe(nestedText(depth));
    }
    for (const depth of [33, 500]) {
      expectInvalid(await remember("nest-too-deep", nestedText(depth)), "structured", "nested deeper than 32 levels");
    }
    // 8,000 levels, the 32 KB value that memory_get used to print as 128 MB, no longer passes the body reader.
    expectInvalid(await remember("nest-too-deep", nestedText(8000)), "request body is nested deeper than 512 levels");
    expect(await listed("nest-too-deep")).toEqual([]);
  });

  test("over 64 KiB of JSON (UTF-8 bytes) is refused with 400 naming the field, and nothing is stored", async () => {
    const agent = "nest-size";
    // {"s":"…"} is 8 bytes around the string.
    const exact = JSON.stringify({ s: "x".repeat(65536 - 8) });
    expect(new TextEncoder().encode(exact).length).toBe(65536);
    const created = await remember(agent, exact);
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body.structured)).toBe(exact);

    const refused = "nest-too-large";
    for (const text of [
      JSON.stringify({ s: "x".repeat(65536 - 7) }),
      // Under 64 Ki characters, over 64 KiB: "é" is two bytes.
      JSON.stringify({ s: "é".repeat(40_000) }),
      // Wide rather than long: 40,000 small arrays.
      JSON.stringify({ many: new Array(40_000).fill([]) }),
    ]) {
      expectInvalid(await remember(refused, text), "structured", "larger than 65536 bytes");
    }
    expect(await listed(refused)).toEqual([]);
  });
});

describe("request bodies nested 100,000 deep", () => {
  const DEEP = 100_000;
  const bodies = {
    arrays: `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`,
    objects: `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`,
    unterminated: "[".repeat(2 * DEEP),
    structured: `{"content":"deep structured","structured":${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}}`,
  };

  test("POST /api/memory/remember: 400 naming the nesting, nothing stored, and /health answers meanwhile", async () => {
    const agent = "nest-body";
    const refusals = Object.values(bodies).map((body) => post("/api/memory/remember", body, agent));
    const healthMs = await timedHealth();
    for (const res of await Promise.all(refusals)) expectInvalid(res, "request body is nested deeper than 512 levels");
    expect(healthMs).toBeLessThan(PROMPT_MS);
    expect(await timedHealth()).toBeLessThan(PROMPT_MS);
    expect(await listed(agent)).toEqual([]);
  });

  test("the body limit is 512 levels and counts no brackets inside strings", async () => {
    const agent = "nest-body-edge";
    // 512 levels in all pass the body reader and meet the field's own limit.
    expectInvalid(await remember(agent, nestedText(511)), "structured", "nested deeper than 32 levels");
    expectInvalid(await remember(agent, nestedText(512)), "request body is nested deeper than 512 levels");
    const inString = await post(
      "/api/memory/remember",
      JSON.stringify({ content: `brackets in a string ${crypto.randomUUID()}`, transcript: `"[{${"[".repeat(DEEP)}` }),
      agent,
    );
    expect(inString.status).toBe(201);
    expect(inString.body.transcript).toBe(`"[{${"[".repeat(DEEP)}`);
  });

  test("POST /mcp: 400 JSON-RPC parse error naming the nesting, and /health answers meanwhile", async () => {
    const refusals = Object.values(bodies).map(async (body) => {
      const res = await td.fetch("/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      });
      return { status: res.status, body: (await res.json()) as any };
    });
    const healthMs = await timedHealth();
    for (const res of await Promise.all(refusals)) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32700);
      expect(res.body.error.message).toContain("request body is nested deeper than 512 levels");
    }
    expect(healthMs).toBeLessThan(PROMPT_MS);
    expect(await timedHealth()).toBeLessThan(PROMPT_MS);
  });
});

describe("MCP memory_store", () => {
  const callTool = (agent: string, name: string, argumentsText: string) =>
    post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argumentsText}}}`, agent, {
      accept: "application/json, text/event-stream",
    });

  test("a structured value too deep is refused naming the field (or the body), and nothing is stored", async () => {
    const agent = "nest-mcp";
    for (const depth of [33, 500]) {
      const res = await callTool(agent, "memory_store", `{"content":"deep via mcp","structured":${nestedText(depth)}}`);
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBe(true);
      expect(res.body.result.content[0].text).toContain("structured: is nested deeper than 32 levels");
    }
    const deepest = await callTool(agent, "memory_store", `{"content":"deep via mcp","structured":${nestedText(8000)}}`);
    expect(deepest.status).toBe(400);
    expect(deepest.body.error.message).toContain("request body is nested deeper than 512 levels");
    const list = await callTool(agent, "memory_list", "{}");
    expect(list.body.result.structuredContent.memories).toEqual([]);
  });

  test("keeps a top-level __proto__ key in structured", async () => {
    const text = '{"__proto__":{"polluted":"via-mcp"},"entity":"x"}';
    const res = await callTool("nest-mcp-proto", "memory_store", `{"content":"proto via mcp","structured":${text}}`);
    expect(res.body.result.isError).toBeUndefined();
    const [stored] = await listed("nest-mcp-proto");
    expect(JSON.stringify(stored.structured)).toBe(text);
    expect(({} as any).polluted).toBeUndefined();
  });
});

describe("__proto__, constructor and prototype keys in structured", () => {
  test("are stored and returned exactly, top level and nested, and set no prototype", async () => {
    const agent = "nest-proto";
    const text =
      '{"__proto__":{"polluted":"top"},"entity":{"__proto__":{"polluted":"nested"},"constructor":{"prototype":{"polluted":"c"}}},"constructor":"c","prototype":["p"]}';
    const created = await remember(agent, text);
    expect(created.status).toBe(201);
    const fetched = await get(`/api/memory/${created.body.id}`, agent);
    const [first] = await listed(agent);
    for (const structured of [created.body.structured, fetched.body.structured, first.structured]) {
      expect(JSON.stringify(structured)).toBe(text);
      expect(Object.hasOwn(structured, "__proto__")).toBe(true);
    }
    // The daemon runs in this process: a prototype set anywhere on the way would show here.
    expect(({} as any).polluted).toBeUndefined();
    // A __proto__ key beside the fields is an unknown field, refused rather than dropped.
    const beside = await post("/api/memory/remember", '{"content":"proto beside","__proto__":{"pinned":true}}', agent);
    expectInvalid(beside, "unknown field __proto__");
  });
});
