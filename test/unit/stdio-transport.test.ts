// The bridge's stdio transport on its own: messages in and out, and a server that misbehaves.
import { expect, test } from "bun:test";
import { alive } from "../../src/control/daemon-process";
import { ProcessGroupStdioTransport } from "../../src/core/bridge/stdio-transport";
import { eventually } from "../helpers/wait";

const NODE = Bun.which("node") ?? "node";

test("a server whose output overflows the message cap is closed with an error, not a crash", async () => {
  const transport = new ProcessGroupStdioTransport({
    command: NODE,
    args: ["-e", "process.stdout.write('x'.repeat(50000)); setInterval(() => {}, 1000)"],
    env: {},
    maxMessageBytes: 4096,
    graceMs: 200,
  });
  const errors: Error[] = [];
  let closed = false;
  transport.onerror = (err) => errors.push(err);
  transport.onclose = () => (closed = true);
  await transport.start();
  const pid = transport.pid!;
  expect(await eventually(() => closed, 5000)).toBe(true);
  expect(errors.some((e) => /maximum size/.test(e.message))).toBe(true);
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
