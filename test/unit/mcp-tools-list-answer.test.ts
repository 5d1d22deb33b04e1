// signet-mcp answers a tools/list that comes before the MCP SDK has loaded from the listing written
// by scripts/gen-mcp-tools-list.ts (src/mcp/tools-list-answer.ts): it must be, byte for byte, what the
// SDK's server built by createMcpServer answers, and only a request for the first page gets it.
import { expect, test } from "bun:test";
import { toolsListAnswer } from "../../src/mcp/tools-list-answer";
import { sdkAnswer } from "../../scripts/lib/mcp-sdk-answer";

const list = (id: string | number, params?: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) });

test("the answer is the SDK server's own, for number and string ids, with or without params (else: run scripts/gen-mcp-tools-list.ts)", async () => {
  for (const request of [list(2), list("tools-1"), list(3, {}), list(4, { _meta: { progressToken: 9 } })]) {
    const sdk = `${JSON.stringify(await sdkAnswer(request))}\n`;
    expect(toolsListAnswer(JSON.stringify(request))).toEqual({ id: request.id, line: sdk });
  }
});

test("the listing names every tool of the table, with its schemas", () => {
  const answer = JSON.parse(toolsListAnswer(JSON.stringify(list(1)))!.line);
  const names = answer.result.tools.map((t: { name: string }) => t.name);
  expect(names).toContain("memory_search");
  expect(names).toContain("memory_store");
  expect(names.length).toBe(new Set(names).size);
  for (const tool of answer.result.tools) expect(tool.inputSchema.type).toBe("object");
});

test("anything but a tools/list request for the first page is left to the SDK", () => {
  const good = list(1);
  const variants: unknown[] = [
    { ...good, method: "tools/call" },
    { ...good, jsonrpc: "1.0" },
    { ...good, id: 1.5 },
    { ...good, id: null },
    { jsonrpc: "2.0", method: "tools/list" },
    list(1, { cursor: "2" }),
    { ...good, params: "all" },
    [good],
  ];
  for (const v of variants) expect(toolsListAnswer(JSON.stringify(v))).toBeUndefined();
  expect(toolsListAnswer("{not json")).toBeUndefined();
});
