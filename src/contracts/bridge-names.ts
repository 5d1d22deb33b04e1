// The words `signet mcp` keeps for itself, apart from the bridge's schemas: the CLI reads them on
// every `signet mcp` command, which must not load zod and the SDK's schemas to do so.

/** Words of the `signet mcp` command line; a server by one of these names could never be called. */
export const RESERVED_SERVER_NAMES = [
  "list",
  "add",
  "remove",
  "enable",
  "disable",
  "import",
  "analytics",
  "serve",
  "help",
  "list-tools",
] as const;
