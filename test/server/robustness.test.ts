// docs/api.md#errors: "No request, however malformed, produces a 500 or stops the daemon." Malformed JSON,
// oversized bodies (declared and streamed), wrong types, unknown fields, odd whole bodies, huge
// numbers, unicode, weird ids, unknown routes and methods, raw socket garbage, and a seeded fuzz loop.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mulberry32 } from "../../scripts/lib/content";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { expectError, readRes, type Res } from "../helpers/memory-api";

async function send(
  td: TestDaemon,
  method: string,
  path: string,
  body?: BodyInit | null,
  headers: Record<string, string> = {},
): Promise<Res> {
  // Bodies are JSON unless a test says otherwise (the guard refuses other content types with 415).
  const withType = body != null && !("content-type" in headers) ? { "content-type": "application/json", ...headers } : headers;
  return readRes(await td.fetch(path, { method, body: body ?? undefined, headers: withType }), method);
}

const json = (td: TestDaemon, method: string, path: string, value: unknown, headers: Record<string, string> = {}) =>
  send(td, method, path, JSON.stringify(value), { "content-type": "application/json", ...headers });

/** Not a 5xx and, for an error, the exact {error, code} body. */
function problemWith(res: Res): string | null {
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 200)}`;
  if (res.status >= 400 && res.text !== "") {
    if (!res.body || typeof res.body !== "object") return `status ${res.status} with a non-JSON body: ${res.text.slice(0, 100)}`;
    const keys = Object.keys(res.body).sort().join(",");
    if (keys !== "code,error" || typeof res.body.error !== "string" || typeof res.body.code !== "string") {
      return `status ${res.status} with body ${res.text.slice(0, 200)}`;
    }
  }
  return null;
}

async function expectHealthy(td: TestDaemon): Promise<void> {
  const health = await send(td, "GET", "/health");
  expect(health.status).toBe(200);
  expect(health.body.status).toBe("ok");
  const r = await json(td, "POST", "/api/memory/remember", { content: `still alive ${crypto.randomUUID()}` });
  expect(r.status).toBe(201);
}

/** A readable stream of `text` in 64 KiB chunks: fetch sends it with Transfer-Encoding: chunked. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 65536));
      offset += 65536;
    },
  });
}

/** Sends raw bytes on a TCP socket; resolves with what came back (or "" after `waitMs`). */
function rawSocket(td: TestDaemon, payload: string, waitMs = 300): Promise<string> {
  const port = Number(new URL(td.url).port);
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    const finish = (value: string) => {
      if (done) return;
      done = true;
      resolve(value);
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write(payload);
          setTimeout(() => {
            socket.end();
            finish(out);
          }, waitMs);
        },
        data(_socket, data) {
          out += new TextDecoder().decode(data);
        },
        close() {
          finish(out);
        },
        error() {
          finish(out);
        },
      },
    }).catch(() => finish(out));
  });
}

const MIB = 1024 * 1024;
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon();
});

afterAll(async () => {
  await td?.stop();
});

describe("invalid JSON", () => {
  const bodies = ["{", "{'content': 'x'}", '{"content": "x",}', '{"content": x}', "undefined", "NaN", '{"content":"x"} trailing', "\u0000", "{{}}"];
  const targets: [string, string][] = [
    ["POST", "/api/memory/remember"],
    ["POST", "/api/memory/note"],
    ["PATCH", "/api/memory/00000000-0000-4000-8000-000000000000"],
    ["DELETE", "/api/memory/00000000-0000-4000-8000-000000000000"],
    ["POST", "/api/memory/00000000-0000-4000-8000-000000000000/recover"],
  ];
  for (const [method, path] of targets) {
    test(`${method} ${path} -> 400 invalid_input`, async () => {
      for (const body of bodies) {
        const res = await send(td, method, path, body, { "content-type": "application/json" });
        expectError(res, 400, "invalid_input");
      }
    });
  }

  test("invalid JSON is a 400; a body of any other content type is a 415 before it is read", async () => {
    for (const ct of ["application/json", "application/json; charset=utf-8", "Application/JSON"]) {
      expectError(await send(td, "POST", "/api/memory/remember", "{not json", { "content-type": ct }), 400, "invalid_input");
    }
    for (const ct of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/octet-stream", ""]) {
      const res = await send(td, "POST", "/api/memory/remember", "{not json", { "content-type": ct });
      expectError(res, 415, "unsupported_media_type");
    }
  });

  test("invalid UTF-8 bytes never produce a 5xx", async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]);
    const res = await send(td, "POST", "/api/memory/remember", bytes, { "content-type": "application/json" });
    expect(problemWith(res)).toBeNull();
    expect(res.status).toBeLessThan(500);
  });

  test("deeply nested JSON never produces a 5xx", async () => {
    const deepObject = `{"content":"deep nesting","structured":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`;
    const deepArray = "[".repeat(200_000);
    for (const body of [deepObject, deepArray]) {
      const res = await send(td, "POST", "/api/memory/remember", body, { "content-type": "application/json" });
      expect(problemWith(res)).toBeNull();
    }
    await expectHealthy(td);
  });
});

describe("body size limit (daemon.maxBodyBytes, default 1 MiB)", () => {
  test("a declared Content-Length over the limit -> 413 too_large with a JSON body", async () => {
    const res = await send(td, "POST", "/api/memory/remember", "x".repeat(MIB + 1), { "content-type": "application/json" });
    expectError(res, 413, "too_large", /limit/);
  });

  test("a JSON body over the limit on every body route -> 413", async () => {
    const big = JSON.stringify({ content: "x", transcript: "t".repeat(MIB) });
    for (const [method, path] of [
      ["POST", "/api/memory/remember"],
      ["POST", "/api/memory/note"],
      ["PATCH", "/api/memory/abc"],
      ["DELETE", "/api/memory/abc"],
      ["POST", "/api/memory/abc/recover"],
    ] as const) {
      expectError(await send(td, method, path, big, { "content-type": "application/json" }), 413, "too_large");
    }
  });

  test("a body just under the limit is accepted", async () => {
    const body = JSON.stringify({ content: `near the limit ${crypto.randomUUID()}`, transcript: "t".repeat(1_000_000) });
    expect(body.length).toBeLessThan(MIB);
    const res = await send(td, "POST", "/api/memory/remember", body, { "content-type": "application/json" });
    expect(res.status).toBe(201);
    expect(res.body.transcript.length).toBe(1_000_000);
  });

  test("a streamed (chunked) body over the limit -> 413 too_large with a JSON body", async () => {
    const body = JSON.stringify({ content: "streamed and too big", transcript: "s".repeat(Math.floor(1.5 * MIB)) });
    const res = await send(td, "POST", "/api/memory/remember", streamOf(body), { "content-type": "application/json" });
    expectError(res, 413, "too_large");
  });

  test("a streamed (chunked) body far over the limit -> 413 too_large with a JSON body", async () => {
    const body = "z".repeat(3 * MIB);
    const res = await send(td, "POST", "/api/memory/remember", streamOf(body), { "content-type": "application/json" });
    expectError(res, 413, "too_large");
  });

  test("a small streamed (chunked) body works", async () => {
    const res = await send(td, "POST", "/api/memory/remember", streamOf(JSON.stringify({ content: `chunked ${crypto.randomUUID()}` })), {
      "content-type": "application/json",
    });
    expect(res.status).toBe(201);
  });

  test("the daemon keeps answering after oversized bodies", async () => {
    await expectHealthy(td);
  });

  describe("with a lower daemon.maxBodyBytes from agent.yaml", () => {
    let small: TestDaemon;
    beforeAll(async () => {
      small = await startTestDaemon({ yaml: "daemon:\n  maxBodyBytes: 2048\n" });
    });
    afterAll(async () => {
      await small?.stop();
    });

    test("the configured limit is enforced and named", async () => {
      const over = JSON.stringify({ content: "c".repeat(3000) });
      expectError(await send(small, "POST", "/api/memory/remember", over, { "content-type": "application/json" }), 413, "too_large", "2048");
      const under = JSON.stringify({ content: "c".repeat(1500) });
      expect((await send(small, "POST", "/api/memory/remember", under, { "content-type": "application/json" })).status).toBe(201);
    });

    test("a streamed body over the configured limit -> 413", async () => {
      const over = JSON.stringify({ content: "c".repeat(3000) });
      expectError(await send(small, "POST", "/api/memory/remember", streamOf(over), { "content-type": "application/json" }), 413, "too_large");
    });
  });
});

describe("wrong types for every field -> 400 naming the field", () => {
  const ID = "00000000-0000-4000-8000-000000000000";
  const remember: [string, unknown[]][] = [
    ["content", [1, true, null, [], {}, ["x"]]],
    ["type", [5, true, null, [], {}]],
    ["importance", ["high", true, null, [], {}, "0.5"]],
    ["tags", [5, true, null, {}, [1, 2], [null], [["nested"]]]],
    ["pinned", ["yes", 1, null, [], {}, "true"]],
    ["who", [1, true, null, [], {}]],
    ["project", [1, true, null, [], {}]],
    ["agentId", [3, true, null, [], {}]],
    ["sessionKey", [1, true, null, [], {}]],
    ["hints", ["one hint", 1, null, {}, [1], [null]]],
    ["transcript", [1, true, null, [], {}]],
    ["structured", ["text", 1, true, null, [], [1, 2]]],
    ["reviewAfter", [12, true, null, [], {}, 1700000000000]],
    ["createdAt", [12, true, null, [], {}, 1700000000000]],
  ];
  test("POST /api/memory/remember", async () => {
    for (const [field, values] of remember) {
      for (const value of values) {
        const body = { content: "typed", [field]: value };
        const res = await json(td, "POST", "/api/memory/remember", body);
        expect({ field, value, status: res.status }).toEqual({ field, value, status: 400 });
        expectError(res, 400, "invalid_input", field);
      }
    }
  });

  test("POST /api/memory/note", async () => {
    const note: [string, unknown[]][] = [
      ["content", [1, true, null, [], {}]],
      ["title", [1, true, null, [], {}]],
      ["tags", [5, true, null, {}, [1]]],
      ["agentId", [3, null, []]],
    ];
    for (const [field, values] of note) {
      for (const value of values) {
        const res = await json(td, "POST", "/api/memory/note", { content: "typed note", [field]: value });
        expect({ field, value, status: res.status }).toEqual({ field, value, status: 400 });
        expectError(res, 400, "invalid_input", field);
      }
    }
  });

  test("PATCH /api/memory/:id", async () => {
    const patch: [string, unknown[]][] = [
      ["reason", [1, true, null, [], {}]],
      ["content", [1, true, null, [], {}]],
      ["type", [5, null, []]],
      ["importance", ["high", null, true]],
      ["tags", [5, null, {}]],
      ["pinned", ["yes", 1, null]],
      ["ifVersion", ["1", 1.5, -1, null, true]],
      ["agentId", [3, null]],
    ];
    for (const [field, values] of patch) {
      for (const value of values) {
        const res = await json(td, "PATCH", `/api/memory/${ID}`, { reason: "r", pinned: true, [field]: value });
        expect({ field, value, status: res.status }).toEqual({ field, value, status: 400 });
        expectError(res, 400, "invalid_input", field);
      }
    }
  });

  test("DELETE /api/memory/:id", async () => {
    const del: [string, unknown[]][] = [
      ["reason", [1, true, null, [], {}]],
      ["force", ["yes", 1, null, []]],
      ["agentId", [3, null]],
    ];
    for (const [field, values] of del) {
      for (const value of values) {
        const res = await json(td, "DELETE", `/api/memory/${ID}`, { reason: "r", [field]: value });
        expect({ field, value, status: res.status }).toEqual({ field, value, status: 400 });
        expectError(res, 400, "invalid_input", field);
      }
    }
  });

  test("POST /api/memory/:id/recover", async () => {
    for (const [field, value] of [["reason", 1], ["reason", []], ["agentId", 3]] as const) {
      const res = await json(td, "POST", `/api/memory/${ID}/recover`, { [field]: value });
      expectError(res, 400, "invalid_input", field);
    }
  });

  test("a field of the wrong type is not reported as missing", async () => {
    // The message must say what is wrong with a value that is present, not that it "is required".
    for (const body of [{ content: 1 }, { content: "x", pinned: "yes" }, { content: "x", importance: "high" }]) {
      const res = await json(td, "POST", "/api/memory/remember", body);
      expectError(res, 400, "invalid_input");
      expect(res.body.error).not.toMatch(/is required/);
    }
  });
});

describe("unknown fields -> 400 naming the field", () => {
  test("on every body route", async () => {
    const ID = "00000000-0000-4000-8000-000000000000";
    const cases: [string, string, Record<string, unknown>][] = [
      ["POST", "/api/memory/remember", { content: "x", colour: "blue" }],
      ["POST", "/api/memory/remember", { content: "x", Content: "y" }],
      ["POST", "/api/memory/remember", { content: "x", agent_id: "a" }],
      ["POST", "/api/memory/note", { content: "x", importance: 1 }],
      ["PATCH", `/api/memory/${ID}`, { reason: "r", pinned: true, project: "p" }],
      ["DELETE", `/api/memory/${ID}`, { reason: "r", hard: true }],
      ["POST", `/api/memory/${ID}/recover`, { why: "x" }],
    ];
    for (const [method, path, body] of cases) {
      const unknown = Object.keys(body).at(-1)!;
      const res = await json(td, method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 400 });
      expectError(res, 400, "invalid_input", unknown);
    }
  });

  test("several unknown fields are all named", async () => {
    const res = await json(td, "POST", "/api/memory/remember", { content: "x", foo: 1, bar: 2 });
    expectError(res, 400, "invalid_input");
    expect(res.body.error).toContain("foo");
    expect(res.body.error).toContain("bar");
  });

  test("__proto__ and constructor are unknown fields, not prototype pollution", async () => {
    const res = await send(td, "POST", "/api/memory/remember", '{"content":"proto","__proto__":{"polluted":true}}', {
      "content-type": "application/json",
    });
    expectError(res, 400, "invalid_input", "__proto__");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const res2 = await json(td, "POST", "/api/memory/remember", { content: "proto", constructor: { prototype: {} } });
    expectError(res2, 400, "invalid_input", "constructor");
  });

  test("unknown query parameters on the list", async () => {
    expectError(await send(td, "GET", "/api/memories?bogus=1"), 400, "invalid_input", "bogus");
    expectError(await send(td, "GET", "/api/memories?agentId=x"), 400, "invalid_input", "agentId");
  });
});

describe("whole bodies that are not objects", () => {
  const wholeBodies = ["[]", '["content"]', '"content"', "null", "42", "-1e400", "true", "false", '""', "{}"];
  for (const [method, path] of [
    ["POST", "/api/memory/remember"],
    ["POST", "/api/memory/note"],
    ["PATCH", "/api/memory/00000000-0000-4000-8000-000000000000"],
    ["DELETE", "/api/memory/00000000-0000-4000-8000-000000000000"],
  ] as const) {
    test(`${method} ${path} -> 400 invalid_input`, async () => {
      for (const body of wholeBodies) {
        const res = await send(td, method, path, body, { "content-type": "application/json" });
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expectError(res, 400, "invalid_input");
      }
      expectError(await send(td, method, path), 400, "invalid_input");
    });
  }

  test("recover accepts no body, but not a non-object body", async () => {
    const id = (await json(td, "POST", "/api/memory/remember", { content: `recover bodies ${crypto.randomUUID()}` })).body.id;
    await json(td, "DELETE", `/api/memory/${id}`, { reason: "x" });
    for (const body of ["[]", '"x"', "42", "true"]) {
      expectError(await send(td, "POST", `/api/memory/${id}/recover`, body, { "content-type": "application/json" }), 400, "invalid_input");
    }
    expect((await send(td, "POST", `/api/memory/${id}/recover`)).status).toBe(200);
  });
});

describe("huge and odd numbers", () => {
  test("importance out of range or non-finite -> 400 naming importance", async () => {
    for (const raw of ["1e308", "1e400", "-1e400", "-0.0000001", "1.0000001", "9007199254740993"]) {
      const res = await send(td, "POST", "/api/memory/remember", `{"content":"numbers","importance":${raw}}`, {
        "content-type": "application/json",
      });
      expectError(res, 400, "invalid_input", "importance");
    }
  });

  test("importance at the bounds is accepted", async () => {
    for (const importance of [0, 1, 0.0001]) {
      const res = await json(td, "POST", "/api/memory/remember", { content: `bounds ${importance} ${crypto.randomUUID()}`, importance });
      expect(res.status).toBe(201);
      expect(res.body.importance).toBe(importance);
    }
  });

  test("ifVersion huge -> 400 or 404, never 5xx", async () => {
    for (const raw of ["1e20", "1e400", "9007199254740993", "18446744073709551616"]) {
      const res = await send(td, "PATCH", "/api/memory/00000000-0000-4000-8000-000000000000", `{"reason":"r","pinned":true,"ifVersion":${raw}}`, {
        "content-type": "application/json",
      });
      expect(problemWith(res)).toBeNull();
      expect([400, 404]).toContain(res.status);
    }
  });

  test("huge limit and offset in the query", async () => {
    expectError(await send(td, "GET", "/api/memories?limit=99999999999999999999"), 400, "invalid_input", "limit");
    expectError(await send(td, "GET", "/api/memories?offset=99999999999999999999"), 400, "invalid_input", "offset");
    expectError(await send(td, "GET", "/api/memories?limit=1e3"), 400, "invalid_input", "limit");
    const max = await send(td, "GET", "/api/memories?offset=9007199254740991");
    expect(max.status).toBe(200);
    expect(max.body.memories).toEqual([]);
  });

  test("absurd dates never produce a 5xx", async () => {
    for (const since of ["9999-12-31", "0000-01-01", "275760-09-13", "2024-01-01T25:61:61Z", "2024-01-01T00:00:00+99:99"]) {
      const res = await send(td, "GET", `/api/memories?since=${encodeURIComponent(since)}`);
      expect(problemWith(res)).toBeNull();
    }
    for (const createdAt of ["0000-01-01", "1970-01-01T00:00:00Z", "2024-01-01T00:00:00.123456789Z"]) {
      const res = await json(td, "POST", "/api/memory/remember", { content: `dates ${createdAt} ${crypto.randomUUID()}`, createdAt });
      expect(problemWith(res)).toBeNull();
    }
  });
});

describe("unicode round-trips exactly", () => {
  const samples = [
    "emoji 🌍🚀 and a family 👩‍👩‍👧‍👦 and flags 🇯🇵🇫🇷",
    "e\u0301 (combining acute) vs \u00e9 (precomposed) stay distinct",
    "日本語のテキスト、中文文本，한국어 텍스트",
    "مرحبا بالعالم — שלום עולם (right to left)",
    "math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ∀x∈ℝ: x² ≥ 0",
    "zero\u200bwidth\u200cjoiners\u200d and \ufeffBOM inside",
    "line\u2028separator and\u2029paragraph",
    "tabs\tand\nnewlines\r\ninside",
    "control \u0001\u0007\u001f characters",
    "nul \u0000 inside",
    "ﬁ ligature and full-width ＡＢＣ are kept as written",
    "quotes \" ' ` and backslash \\ and <script>alert(1)</script>",
  ];

  test("content returned by remember, get, list and history equals the input", async () => {
    const agent = `unicode-${crypto.randomUUID().slice(0, 8)}`;
    for (const content of samples) {
      const created = await json(td, "POST", "/api/memory/remember", { content }, { "x-signet-agent-id": agent });
      expect({ content, status: created.status }).toEqual({ content, status: 201 });
      expect(created.body.content).toBe(content);
      const got = await send(td, "GET", `/api/memory/${created.body.id}`, undefined, { "x-signet-agent-id": agent });
      expect(got.body.content).toBe(content);
      expect(got.body.history[0].content).toBe(content);
    }
    const listed = await send(td, "GET", "/api/memories?limit=1000", undefined, { "x-signet-agent-id": agent });
    expect(listed.body.memories.map((m: any) => m.content).sort()).toEqual([...samples].sort());
  });

  test("unicode in tags, who, project, hints and structured round-trips", async () => {
    const body = {
      content: `unicode fields ${crypto.randomUUID()}`,
      tags: ["日本", "émoji🌍", "ß"],
      who: "Zoë 👩‍💻",
      project: "/home/ユーザー/プロジェクト",
      hints: ["¿dónde está?", "🔍 search"],
      structured: { "ключ": "значение", emoji: "🎉", nested: ["\u0000", "\u2028"] },
    };
    const created = await json(td, "POST", "/api/memory/remember", body);
    expect(created.status).toBe(201);
    const got = await send(td, "GET", `/api/memory/${created.body.id}`);
    for (const m of [created.body, got.body]) {
      expect(m.tags).toEqual(body.tags);
      expect(m.who).toBe(body.who);
      expect(m.project).toBe(body.project);
      expect(m.hints).toEqual(body.hints);
      expect(m.structured).toEqual(body.structured);
    }
    const byTag = await send(td, "GET", `/api/memories?tags=${encodeURIComponent("émoji🌍")}`);
    expect(byTag.body.memories.map((m: any) => m.id)).toContain(created.body.id);
    const byProject = await send(td, "GET", `/api/memories?project=${encodeURIComponent(body.project)}`);
    expect(byProject.body.memories.map((m: any) => m.id)).toEqual([created.body.id]);
  });

  test("a lone surrogate is either rejected or stored exactly as answered", async () => {
    const content = `lone surrogate \ud800 here ${crypto.randomUUID()}`;
    const created = await json(td, "POST", "/api/memory/remember", { content });
    expect(problemWith(created)).toBeNull();
    if (created.status === 400) return;
    expect(created.status).toBe(201);
    const got = await send(td, "GET", `/api/memory/${created.body.id}`);
    // What the daemon answered must be what it stored.
    expect(got.body.content).toBe(created.body.content);
  });
});

describe("weird ids in paths", () => {
  const ids = [
    "%00",
    "%00abc",
    "%ZZ",
    "%E0%A4%A",
    "%",
    "%%",
    "%C0%AF",
    "..%2F..%2Fetc%2Fpasswd",
    "%2F",
    "%2e%2e",
    "%20",
    "'%20OR%201%3D1%20--",
    "%22%3E%3Cscript%3E",
    encodeURIComponent("日本語"),
    encodeURIComponent("👩‍👩‍👧"),
    "a".repeat(201),
    "a".repeat(5000),
    "00000000-0000-4000-8000-000000000000",
    "null",
    "undefined",
    "-1",
    "1e400",
  ];

  test("GET, history, PATCH, DELETE and recover answer 400 or 404 with the error body", async () => {
    for (const id of ids) {
      const attempts: [string, string, unknown][] = [
        ["GET", `/api/memory/${id}`, undefined],
        ["GET", `/api/memory/${id}/history`, undefined],
        ["PATCH", `/api/memory/${id}`, { reason: "r", pinned: true }],
        ["DELETE", `/api/memory/${id}`, { reason: "r" }],
        ["POST", `/api/memory/${id}/recover`, {}],
      ];
      for (const [method, path, body] of attempts) {
        const res = body === undefined ? await send(td, method, path) : await json(td, method, path, body);
        expect({ id: id.slice(0, 40), method, problem: problemWith(res) }).toEqual({ id: id.slice(0, 40), method, problem: null });
        expect({ id: id.slice(0, 40), method, ok: [400, 404].includes(res.status) }).toEqual({ id: id.slice(0, 40), method, ok: true });
      }
    }
  });

  test("an id too long for the transport never produces a 5xx or stops the daemon", async () => {
    const res = await send(td, "GET", `/api/memory/${"b".repeat(100_000)}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    await expectHealthy(td);
  });
});

describe("unknown routes and wrong methods", () => {
  test("unknown routes -> 404 not_found with the error body", async () => {
    for (const path of ["/nope", "/api", "/api/", "/api/memory", "/api/memory/", "/api/memory/x/y/z", "/api/memories/extra", "/healthz", "/api/v2/memory/remember", "/%ZZ", "/api/memory/remember/extra"]) {
      const res = await send(td, "GET", path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expectError(res, 404, "not_found");
    }
  });

  test("wrong methods on known paths -> 404/405 with the error body, never 5xx", async () => {
    const cases: [string, string][] = [
      ["PUT", "/api/memory/remember"],
      ["DELETE", "/api/memories"],
      ["PATCH", "/api/memories"],
      ["POST", "/api/memories"],
      ["POST", "/health"],
      ["DELETE", "/health"],
      ["PUT", "/api/memory/abc"],
      ["GET", "/api/memory/abc/recover"],
      ["POST", "/api/memory/abc/history"],
      ["TRACE", "/api/memories"],
    ];
    for (const [method, path] of cases) {
      const res = await send(td, method, path, method === "GET" || method === "TRACE" ? undefined : "{}");
      expect({ method, path, problem: problemWith(res) }).toEqual({ method, path, problem: null });
      expect({ method, path, ok: [404, 405].includes(res.status) }).toEqual({ method, path, ok: true });
      // TRACE answers, like HEAD, carry no body at the transport level; every other one is {error, code}.
      if (method !== "TRACE") expect(Object.keys(res.body ?? {}).sort()).toEqual(["code", "error"]);
    }
  });

  test("GET /api/memory/remember is just an id nobody has", async () => {
    expectError(await send(td, "GET", "/api/memory/remember"), 404, "not_found");
  });

  test("HEAD never produces a 5xx", async () => {
    for (const path of ["/health", "/api/memories", "/api/memory/abc", "/nope"]) {
      expect((await send(td, "HEAD", path)).status).toBeLessThan(500);
    }
  });
});

describe("headers", () => {
  test("invalid agent ids in the header -> 400 invalid_input", async () => {
    for (const agent of ["has space", "-dash-first", ".dot", "a/b", "a".repeat(129), "a,b", "semi;colon"]) {
      const res = await send(td, "GET", "/api/memories", undefined, { "x-signet-agent-id": agent });
      expect({ agent, status: res.status }).toEqual({ agent, status: 400 });
      expectError(res, 400, "invalid_input");
    }
  });

  test("a blank agent header means the default agent", async () => {
    expect((await send(td, "GET", "/api/memories", undefined, { "x-signet-agent-id": "   " })).status).toBe(200);
  });

  test("oversized provenance headers are accepted and bounded", async () => {
    const res = await json(td, "POST", "/api/memory/remember", { content: `long actor ${crypto.randomUUID()}` }, {
      "x-signet-actor": "a".repeat(2000),
      "x-signet-actor-type": "t".repeat(2000),
      "x-signet-runtime-path": "r".repeat(2000),
    });
    expect(res.status).toBe(201);
    expect(res.body.source.length).toBeLessThanOrEqual(1000);
  });

  test("odd content types with a valid JSON body never produce a 5xx", async () => {
    for (const ct of ["text/plain", "application/json; charset=latin1", "application/xml", "image/png", "application/x-www-form-urlencoded", "multipart/form-data"]) {
      const res = await send(td, "POST", "/api/memory/remember", JSON.stringify({ content: `ct ${ct} ${crypto.randomUUID()}` }), { "content-type": ct });
      expect({ ct, problem: problemWith(res) }).toEqual({ ct, problem: null });
    }
  });
});

describe("raw HTTP on the socket", () => {
  const host = () => `127.0.0.1:${new URL(td.url).port}`;

  test("a well-formed raw request is answered", async () => {
    const body = JSON.stringify({ content: `raw socket ${crypto.randomUUID()}` });
    const out = await rawSocket(
      td,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(out).toStartWith("HTTP/1.1 201");
  });

  test("a one-letter Host header is refused by the guard, in JSON, not misrouted", async () => {
    const out = await rawSocket(td, `GET /api/memories HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(out).toStartWith("HTTP/1.1 403");
    expect(out).toContain('"code":"forbidden"');
  });

  test("garbage, bad lengths, truncated and bad chunked bodies never produce a 5xx or stop the daemon", async () => {
    const payloads = [
      "GARBAGE\r\n\r\n",
      "\u0000\u0001\u0002\r\n\r\n",
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: abc\r\n\r\n{}`,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: -5\r\n\r\n{}`,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 100\r\n\r\n{"con`,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 2\r\nContent-Length: 50\r\n\r\n{}`,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"con`,
      `POST /api/memory/remember HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 99999999999999999999\r\n\r\n{}`,
      `GET /api/memories HTTP/1.1\r\nHost: ${host()}\r\n${"X-Filler: y\r\n".repeat(2000)}\r\n`,
      `GET /${"a".repeat(70_000)} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`,
    ];
    const outs = await Promise.all(payloads.map((p) => rawSocket(td, p, 200)));
    for (const out of outs) expect(out).not.toMatch(/^HTTP\/1\.1 5\d\d/);
    await expectHealthy(td);
  });

  test("an unsupported HTTP version is refused by the transport and the daemon keeps running", async () => {
    const out = await rawSocket(td, "GET /health HTTP/9.9\r\n\r\n", 200);
    expect(out).not.toMatch(/^HTTP\/1\.1 500/);
    await expectHealthy(td);
  });
});

describe("seeded fuzz", () => {

  test("300 random malformed requests: no 5xx, error bodies always {error, code}; the daemon still works", async () => {
    const rnd = mulberry32(0x5151_6e7);
    const int = (n: number) => Math.floor(rnd() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
    const existing = (await json(td, "POST", "/api/memory/remember", { content: `fuzz anchor ${crypto.randomUUID()}`, pinned: true })).body.id as string;

    const chars = "abcXYZ019 -_.:@/%?#&=+\"'\\{}[],;\u0000\u00e9\u65e5\ud83c\udf0d";
    const randString = (max: number) => Array.from({ length: int(max) }, () => pick([...chars])).join("");
    const keys = ["content", "type", "importance", "tags", "pinned", "who", "project", "agentId", "sessionKey", "hints", "transcript", "structured", "reviewAfter", "createdAt", "reason", "force", "ifVersion", "title", "bogus", "__proto__", ""];
    const randValue = (depth: number): unknown => {
      switch (int(depth > 2 ? 6 : 9)) {
        case 0: return null;
        case 1: return rnd() < 0.5;
        case 2: return pick([0, -1, 1, 0.5, 1e308, -1e-308, 2 ** 53 + 2, 3.14, 1e21]);
        case 3: return randString(20);
        case 4: return pick(["", " ", "fact", "2024-01-01", "2999-01-01T00:00:00Z", "a,b,,c", "true"]);
        case 5: return "x".repeat(int(3) === 0 ? 9000 : 10);
        case 6: return Array.from({ length: int(4) }, () => randValue(depth + 1));
        case 7: return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(keys), randValue(depth + 1)]));
        default: return Object.fromEntries(Array.from({ length: 1 + int(4) }, () => [pick(keys), randValue(depth + 1)]));
      }
    };
    const randBody = (): BodyInit | undefined => {
      switch (int(7)) {
        case 0: return undefined;
        case 1: return new Uint8Array(Array.from({ length: int(200) }, () => int(256)));
        case 2: {
          const s = JSON.stringify({ content: randString(30), tags: [randString(5)], reason: "r" });
          return s.slice(0, int(s.length));
        }
        case 3: return JSON.stringify(randValue(0));
        case 4:
        case 5: return JSON.stringify(Object.fromEntries(Array.from({ length: 1 + int(5) }, () => [pick(keys), randValue(1)])));
        default: return JSON.stringify({ content: `fuzz ${randString(12)}`, reason: "fuzz", pinned: rnd() < 0.3, tags: randString(10) });
      }
    };
    const randId = () =>
      pick([existing, crypto.randomUUID(), encodeURIComponent(randString(30)), "%ZZ", "%00", "a".repeat(int(400)), "..%2F", "%E0%A4%A"]);
    const randQuery = () =>
      Array.from({ length: int(5) }, () => `${pick(["limit", "offset", "type", "tags", "project", "who", "since", "until", "pinned", "agent_id", "x"])}=${encodeURIComponent(String(randValue(2)))}`).join("&");
    const randPath = () => {
      switch (int(9)) {
        case 0: return "/api/memory/remember";
        case 1: return "/api/memory/note";
        case 2: return `/api/memories?${randQuery()}`;
        case 3: return `/api/memory/${randId()}`;
        case 4: return `/api/memory/${randId()}/history`;
        case 5: return `/api/memory/${randId()}/recover`;
        case 6: return "/health";
        case 7: return `/${encodeURIComponent(randString(20))}`;
        default: return `/api/memory/${randId()}?${randQuery()}`;
      }
    };
    const contentTypes = ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=zz", ""];
    const agents = ["default", "fuzz-agent", "", "bad agent", "-x", "a".repeat(200)];

    const problems: string[] = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const method = pick(["GET", "POST", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"]);
      const path = randPath();
      const headers: Record<string, string> = {};
      const ct = pick(contentTypes);
      if (ct) headers["content-type"] = ct;
      const agent = pick(agents);
      if (agent) headers["x-signet-agent-id"] = agent;
      if (rnd() < 0.3) headers["x-signet-actor"] = randString(30).replace(/[^\x20-\x7e]/g, "");
      const body = method === "GET" ? undefined : randBody();
      let res: Res;
      try {
        res = await send(td, method, path, body, headers);
      } catch (err) {
        problems.push(`#${i} ${method} ${path.slice(0, 80)}: request failed: ${(err as Error).message}`);
        continue;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const problem = problemWith(res);
      if (problem) problems.push(`#${i} ${method} ${path.slice(0, 80)}: ${problem}`);
    }
    expect(problems).toEqual([]);
    // The seeded mix really reaches the handlers: successes, validation errors and misses all occur.
    const seen = [...statuses.keys()];
    expect(seen.some((s) => s >= 200 && s < 300)).toBe(true);
    expect(seen).toContain(400);
    expect(seen).toContain(404);
    await expectHealthy(td);
  });

  test("concurrent valid and invalid requests interleave safely", async () => {
    const agent = `concurrent-${crypto.randomUUID().slice(0, 8)}`;
    const jobs: Promise<Res>[] = [];
    for (let i = 0; i < 60; i++) {
      if (i % 3 === 0) jobs.push(send(td, "POST", "/api/memory/remember", "{broken", { "x-signet-agent-id": agent }));
      else jobs.push(json(td, "POST", "/api/memory/remember", { content: `concurrent ${i}` }, { "x-signet-agent-id": agent }));
    }
    const results = await Promise.all(jobs);
    for (const r of results) expect(problemWith(r)).toBeNull();
    expect(results.filter((r) => r.status === 201).length).toBe(40);
    expect(results.filter((r) => r.status === 400).length).toBe(20);
    const listed = await send(td, "GET", "/api/memories?limit=1000", undefined, { "x-signet-agent-id": agent });
    expect(listed.body.memories.length).toBe(40);
  });
});
