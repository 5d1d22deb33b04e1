// A transport the daemon could not start as written is refused at install and at update (400 naming
// the field), not stored to fail every start or run differently (docs/api.md#the-server-object):
// an env name holding "=" or NUL, a NUL in the command, an argument, the cwd or an env value, a
// header name that is no HTTP token, a header value holding CR, LF, NUL or a character beyond U+00FF.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";
import { everythingStdio } from "../helpers/everything";

let d: TestDaemon;

beforeAll(async () => {
  d = await startTestDaemon();
});

afterAll(async () => {
  await d.stop();
});

afterEach(async () => {
  for (const s of await d.daemon.context.bridge.list()) await d.daemon.context.bridge.remove(s.name);
});

async function api(method: string, path: string, body?: unknown) {
  const res = await d.fetch(path, {
    method,
    headers: { "content-type": "application/json", ...d.ownerHeaders },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const http = (headers: Record<string, string>) => ({ type: "http", url: "http://127.0.0.1:9/mcp", headers });
const stdio = (fields: Record<string, unknown>) => ({ ...everythingStdio(), ...fields });

/** Each transport with what its refusal says. */
const REFUSED: [unknown, string][] = [
  [stdio({ env: { "API_KEY=x": "abc" } }), 'transport.env: the name "API_KEY=x" cannot hold "="'],
  [stdio({ env: { "A\0B": "abc" } }), 'transport.env: the name "A\\u0000B" cannot hold a NUL character'],
  [stdio({ env: { KEY: "a\0b" } }), 'transport.env: the value of "KEY" cannot hold a NUL character'],
  [stdio({ command: "no\0de" }), "transport.command: the command cannot hold a NUL character"],
  [stdio({ args: ["ok", "b\0d"] }), "transport.args.1: an argument cannot hold a NUL character"],
  [stdio({ cwd: "/tmp/a\0b" }), "transport.cwd: the directory cannot hold a NUL character"],
  [http({ "X Bad": "v" }), 'transport.headers: "X Bad" is not an HTTP header name'],
  [http({ "X-Line": "a\nb" }), 'transport.headers: the value of "X-Line" cannot hold "\\n"'],
  [http({ "X-Return": "a\rb" }), 'transport.headers: the value of "X-Return" cannot hold "\\r"'],
  [http({ "X-Nul": "a\0b" }), 'transport.headers: the value of "X-Nul" cannot hold "\\u0000"'],
  [http({ "X-Wide": "5 €" }), 'transport.headers: the value of "X-Wide" cannot hold "€"'],
];

test("install refuses each, naming the field and the entry, and stores nothing", async () => {
  for (const [transport, message] of REFUSED) {
    const r = await api("POST", "/api/marketplace/servers", { name: "bad", transport });
    expect({ message, status: r.status, code: r.body.code }).toEqual({ message, status: 400, code: "invalid_input" });
    expect(r.body.error).toContain(message);
  }
  expect((await api("GET", "/api/marketplace/servers")).body.servers).toEqual([]);
});

test("update refuses each the same, and the server keeps its transport", async () => {
  const good = stdio({ env: { KEY: "v" } });
  expect((await api("POST", "/api/marketplace/servers", { name: "kept", transport: good })).status).toBe(201);
  for (const [transport, message] of REFUSED) {
    const r = await api("PATCH", "/api/marketplace/servers/kept", { transport });
    expect({ message, status: r.status }).toEqual({ message, status: 400 });
    expect(r.body.error).toContain(message);
  }
  expect((await api("GET", "/api/marketplace/servers/kept")).body.transport).toEqual({ ...good, args: good.args, env: { KEY: "v" } });
});

test("what a process and a header can carry is installed as given", async () => {
  const env = { "lower.case-name": "x=y", EMPTY: "", LATIN: "café", TOKEN: "secret:TOKEN" };
  const a = await api("POST", "/api/marketplace/servers", { name: "fine-stdio", transport: stdio({ env }) });
  expect({ status: a.status, env: a.body.transport.env }).toEqual({ status: 201, env });
  const headers = { "X-Token_1!#$%&'*+.^`|~": "Bearer a\tb", Authorization: "secret:TOKEN", "X-Latin": "café" };
  const b = await api("POST", "/api/marketplace/servers", { name: "fine-http", transport: http(headers) });
  expect({ status: b.status, headers: b.body.transport.headers }).toEqual({ status: 201, headers });
});
