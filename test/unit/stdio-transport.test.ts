// The bridge's stdio transport on its own: framing, messages in and out, where a server runs, and a
// server that misbehaves.
import { describe, expect, test } from "bun:test";
import { homedir, tmpdir } from "node:os";
import { realpathSync } from "node:fs";
import { alive } from "../../src/control/daemon-process";
import { LineFramer } from "../../src/core/bridge/line-framer";
import { ProcessGroupStdioTransport } from "../../src/core/bridge/stdio-transport";
import { eventually } from "../helpers/wait";

const NODE = Bun.which("node") ?? "node";

describe("line framing", () => {
  const text = (lines: Buffer[]) => lines.map((l) => l.toString());

  test("lines split across chunks, several in one chunk, and the rest held for the next", () => {
    const framer = new LineFramer(1024);
    expect(text(framer.push(Buffer.from('{"a"')))).toEqual([]);
    expect(text(framer.push(Buffer.from(":1}\n{}\r\n[")))).toEqual(['{"a":1}', "{}\r"]);
    expect(text(framer.push(Buffer.from("]\n\n")))).toEqual(["[]", ""]);
  });

  test("a line may be exactly the limit; one byte more throws, whether or not its newline came", () => {
    expect(text(new LineFramer(4).push(Buffer.from("abcd\n")))).toEqual(["abcd"]);
    expect(() => new LineFramer(4).push(Buffer.from("abcde\n"))).toThrow(RangeError);
    const framer = new LineFramer(4);
    framer.push(Buffer.from("abc"));
    expect(() => framer.push(Buffer.from("de"))).toThrow("longer than 4 bytes");
  });

  test("work is linear in the input: 50,000 small chunks, and four times as many", () => {
    // Bytes searched for a newline and bytes copied into lines, counted where Buffer does them:
    // a framer that searched or joined everything held on each chunk would count ~N²/2 here.
    const indexOf = Buffer.prototype.indexOf;
    const concat = Buffer.concat;
    let work = 0;
    Buffer.prototype.indexOf = function (this: Buffer, value: any, from?: any, encoding?: any) {
      work += this.length - (typeof from === "number" ? from : 0);
      return indexOf.call(this, value, from, encoding);
    } as typeof indexOf;
    Buffer.concat = ((list: readonly Uint8Array[], total?: number) => {
      work += total ?? list.reduce((n, b) => n + b.length, 0);
      return concat(list, total);
    }) as typeof concat;
    const run = (chunks: number) => {
      work = 0;
      const framer = new LineFramer(64 * 1024 * 1024);
      const chunk = Buffer.from("x".repeat(20));
      const lines: Buffer[] = [];
      for (let i = 0; i < chunks; i++) lines.push(...framer.push(chunk));
      lines.push(...framer.push(Buffer.from("\n")));
      expect(lines.map((l) => l.length)).toEqual([chunks * 20]);
      return work;
    };
    try {
      const n = run(50_000);
      const n4 = run(200_000);
      expect(n).toBeLessThanOrEqual(2 * 50_000 * 20 + 1);
      expect(n4 / n).toBeLessThan(4.5);
    } finally {
      Buffer.prototype.indexOf = indexOf;
      Buffer.concat = concat;
    }
  });
});

test("a server whose message passes bridge.maxMessageBytes is closed with an error naming the limit", async () => {
  const transport = new ProcessGroupStdioTransport({
    command: NODE,
    args: ["-e", "process.stdout.write('x'.repeat(300000)); setInterval(() => {}, 1000)"],
    env: {},
    maxMessageBytes: 256 * 1024,
    graceMs: 200,
  });
  const errors: Error[] = [];
  let closed = false;
  transport.onerror = (err) => errors.push(err);
  transport.onclose = () => (closed = true);
  await transport.start();
  const pid = transport.pid!;
  expect(await eventually(() => closed, 5000)).toBe(true);
  expect(transport.failure).toBe("it sent a message larger than 262144 bytes, the limit set by bridge.maxMessageBytes");
  expect(errors.map((e) => e.message)).toEqual([`MCP server closed: ${transport.failure}`]);
  expect(alive(pid)).toBe(false);
});

test("lines that are not JSON-RPC are reported and skipped; real messages still arrive", async () => {
  const reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} });
  const transport = new ProcessGroupStdioTransport({
    command: NODE,
    args: ["-e", `console.log("debug: starting"); console.log(${JSON.stringify(reply)})`],
    env: {},
  });
  const errors: Error[] = [];
  const messages: unknown[] = [];
  transport.onerror = (err) => errors.push(err);
  transport.onmessage = (m) => messages.push(m);
  let closed = false;
  transport.onclose = () => (closed = true);
  await transport.start();
  expect(await eventually(() => closed, 5000)).toBe(true);
  expect(messages).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
  expect(errors).toHaveLength(1);
  await transport.close();
});

test("a server runs in its cwd, or without one in the home directory (/ if there is none), never in the daemon's", async () => {
  const cwdOf = async (cwd?: string) => {
    const transport = new ProcessGroupStdioTransport({
      command: NODE,
      args: ["-e", `console.log(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { cwd: process.cwd() } }))`],
      env: {},
      cwd,
    });
    const messages: any[] = [];
    transport.onmessage = (m) => messages.push(m);
    await transport.start();
    expect(await eventually(() => messages.length > 0, 5000)).toBe(true);
    await transport.close();
    return messages[0].result.cwd as string;
  };
  expect(process.cwd()).not.toBe(homedir());
  expect(await cwdOf()).toBe(realpathSync(homedir()));
  expect(await cwdOf(tmpdir())).toBe(realpathSync(tmpdir()));
  // The runtime reads HOME once, at start: a process of its own for a home that does not exist.
  const script = `
    import { ProcessGroupStdioTransport } from ${JSON.stringify(require.resolve("../../src/core/bridge/stdio-transport"))};
    const t = new ProcessGroupStdioTransport({ command: ${JSON.stringify(NODE)}, args: ["-e", "console.log(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { cwd: process.cwd() } }))"], env: {} });
    t.onmessage = (m) => { console.log(m.result.cwd); void t.close(); };
    await t.start();`;
  const proc = Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, HOME: "/dev/null/home" }, stdout: "pipe" });
  expect((await new Response(proc.stdout).text()).trim()).toBe("/");
  expect(await proc.exited).toBe(0);
});
