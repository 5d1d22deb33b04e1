// Writes src/mcp/tools-list-result.txt: the result the MCP SDK's server, built over the tool table,
// answers to `tools/list`, as JSON. signet-mcp sends it when a tools/list request comes before the
// SDK has loaded (src/mcp/tools-list-answer.ts). Run it after changing a tool (its name, title,
// description, schemas or annotations); the tests say when the file is out of date.
//
//   bun scripts/gen-mcp-tools-list.ts          (re)write the file
//   bun scripts/gen-mcp-tools-list.ts --check  exit 1 when the file differs from what would be written
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sdkAnswer } from "./lib/mcp-sdk-answer";

const PATH = join(import.meta.dir, "..", "src", "mcp", "tools-list-result.txt");
const answer = await sdkAnswer({ jsonrpc: "2.0", id: 1, method: "tools/list" });
if (!("result" in answer)) throw new Error(`tools/list failed: ${JSON.stringify(answer)}`);
const text = `${JSON.stringify(answer.result)}\n`;

if (process.argv.includes("--check")) {
  const current = readFileSync(PATH, "utf8");
  if (current !== text) {
    console.error(`${PATH} differs from what scripts/gen-mcp-tools-list.ts writes: run it again`);
    process.exit(1);
  }
  console.error(`${PATH} is up to date`);
} else {
  writeFileSync(PATH, text);
  console.error(`wrote ${PATH} (${text.length} bytes)`);
}
