// What the bridge's stdio transport keeps of a server's stderr, and what it makes of an answer that
// is not JSON-RPC. The secret values the server was given are redacted as stderr comes, before the
// tail it keeps is cut, so no cut leaves a piece of one; a value split across writes (a multibyte
// character included) is still seen whole.
import { describe, expect, test } from "bun:test";
import { ProcessGroupStdioTransport } from "../../src/core/bridge/stdio-transport";
import { eventually } from "../helpers/wait";

const NODE = Bun.which("node") ?? "node";
const KEY = "sk-live-7Q2wE9rT4yU6iO8pA1sD3fG5hJ0kL2zX4cV6bN";
const UNICODE_KEY = "pässwörd-ünïcödé-9f8e7d6c";

/** Whether `text` holds any 8 characters of `key` in a row. */
function leaks(text: string, key: string): boolean {
  for (let i = 0; i + 8 <= key.length; i++) if (text.includes(key.slice(i, i + 8))) return true;
  return false;
}

/** Runs `script` (node -e) as a server given `secrets`, to its exit; what its transport kept of stderr. */
async function stderrOf(script: string, secrets: string[], env: Record<string, string>): Promise<string> {
  const transport = new ProcessGroupStdioTransport({ command: NODE, args: ["-e", script], env, secrets });
  let closed = false;
  transport.onclose = () => (closed = true);
  await transport.start();
  expect(await eventually(() => closed, 5000)).toBe(true);
  return transport.stderr;
}

describe("a server's stderr", () => {
  test("whose kept tail would begin inside the key shows none of it", async () => {
    const script = "process.stderr.write('key=' + process.env.K + 'f'.repeat(4080)); process.exit(1)";
    const tail = await stderrOf(script, [KEY], { K: KEY });
    expect(leaks(tail, KEY)).toBe(false);
    expect(tail.endsWith("f".repeat(4080))).toBe(true);
  });

  test("with the key split across writes, inside a multibyte character too, shows it redacted", async () => {
    const script = `
      const bytes = Buffer.from("auth failed for " + process.env.K + " (rejected)\\n");
      const cut = bytes.indexOf(Buffer.from("ä")) + 1;
      process.stderr.write(bytes.subarray(0, cut), () => setTimeout(() => process.stderr.write(bytes.subarray(cut), () => process.exit(1)), 50));`;
    const tail = await stderrOf(script, [UNICODE_KEY], { K: UNICODE_KEY });
    expect(tail).toBe("auth failed for [REDACTED] (rejected)");
  });

  test("of a server given no secrets is kept as written", async () => {
    expect(await stderrOf("process.stderr.write('plain words ü'); process.exit(1)", [], {})).toBe("plain words ü");
  });
});

test("an answer that is not valid JSON-RPC reaches the client as an error answer to its request, saying what is wrong", async () => {
  const lines = [
    { jsonrpc: "2.0", id: 1, result: 42 },
    { jsonrpc: "2.0", id: "two", result: {}, error: { code: 1, message: "x" } },
    { jsonrpc: "2.0", id: 3, error: "no" },
    { jsonrpc: "1.0", id: 4, result: {} },
    // No request waits on these: reported, nothing more.
    { jsonrpc: "2.0", method: 7 },
    { jsonrpc: "2.0", id: null, result: 1 },
  ];
  const script = lines.map((l) => `console.log(${JSON.stringify(JSON.stringify(l))});`).join("");
  const transport = new ProcessGroupStdioTransport({ command: NODE, args: ["-e", script], env: {} });
  const messages: any[] = [];
  const errors: Error[] = [];
  let closed = false;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (err) => errors.push(err);
  transport.onclose = () => (closed = true);
  await transport.start();
  expect(await eventually(() => closed, 5000)).toBe(true);
  expect(messages.map((m) => [m.id, m.error.code, m.error.message])).toEqual([
    [1, -32603, "invalid answer: its result is not an object"],
    ["two", -32603, "invalid answer: it has both a result and an error"],
    [3, -32603, "invalid answer: its error is not an object with a numeric code and a message"],
    [4, -32603, 'invalid answer: its "jsonrpc" is not "2.0"'],
  ]);
  expect(errors).toHaveLength(lines.length);
});
