// `signet mcp serve`: the stdio MCP server, under whatever name the binary was invoked by.
import { defineCommand } from "../command";
import { ExitError } from "../errors";

export const serve = defineCommand({
  meta: { name: "serve", description: "Serve Signet's MCP tools over stdio (what `signet-mcp` does)" },
  async run() {
    const { runStdioServer } = await import("../../mcp/stdio");
    const code = await runStdioServer();
    if (code !== 0) throw new ExitError(code);
  },
});
