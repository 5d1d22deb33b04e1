// The API's answers the pages name, beyond what their calls already type (src/dashboard/api.ts):
// the contracts' own types, imported as types only (nothing of zod reaches the browser bundle), so
// a page cannot drift from its route (docs/api.md).
export type { BridgeTool, ListedServer } from "../contracts/bridge";
export type { Memory, MemoryWithHistory } from "../contracts/memory";
export type { RecallResult } from "../contracts/recall";
export type { SessionMemory, SessionSummary } from "../contracts/session";
