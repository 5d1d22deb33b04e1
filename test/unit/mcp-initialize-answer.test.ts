// signet-mcp sends its initialize answer before the MCP SDK has loaded (src/mcp/initialize-answer.ts):
// it must be, byte for byte, what the SDK's server built by createMcpServer answers to the same
// request, for every protocol version a client may ask for, and only well-formed requests get it.
import { expect, test } from "bun:test";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { initializeAnswer, SUPPORTED_PROTOCOL_VERSIONS as OURS } from "../../src/mcp/initialize-answer";
import { VERSION } from "../../src/version";
import { sdkAnswer } from "../../scripts/lib/mcp-sdk-answer";

const initialize = (protocolVersion: string, id: string | number = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: { roots: { listChanged: true } }, clientInfo: { name: "test", version: "1.0" } },
});

test("the protocol versions are the SDK's, newest first", () => {
  expect<string[]>([...OURS]).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
  expect(OURS[0]).toBe(LATEST_PROTOCOL_VERSION);
});

test("the answer is the SDK server's own for every version, an unknown one and a string id", async () => {
  for (const [version, id] of [...SUPPORTED_PROTOCOL_VERSIONS.map((v) => [v, 1] as const), ["1999-01-01", 7], ["2025-03-26", "init-1"]] as const) {
    const request = initialize(version, id);
    const line = JSON.stringify(request);
    expect(initializeAnswer(line, VERSION)).toEqual({ id, line: `${JSON.stringify(await sdkAnswer(request))}\n` });
  }
});

test("anything but a well-formed initialize request is left to the SDK", () => {
  const good = initialize("2025-03-26");
  const variants: unknown[] = [
    { ...good, method: "tools/list" },
    { ...good, jsonrpc: "1.0" },
    { ...good, id: 1.5 },
    { ...good, id: null },
    { ...good, params: { ...good.params, protocolVersion: 20250326 } },
    { ...good, params: { ...good.params, capabilities: undefined } },
    { ...good, params: { ...good.params, clientInfo: { name: "test" } } },
    [good],
  ];
  for (const v of variants) expect(initializeAnswer(JSON.stringify(v), VERSION)).toBeUndefined();
  expect(initializeAnswer("{not json", VERSION)).toBeUndefined();
});
