// The API's answers the pages read are the contracts' own types, imported as types only (nothing of
// zod reaches the browser bundle), so a page cannot drift from its route (docs/api.md).
export type { InboxResponse, PresenceListResponse } from "../contracts/agents";
export type { AlertsResponse, AnalyticsResponse, SessionToolsResponse, UnusedResponse } from "../contracts/analytics";
export type { BridgeTool, ListedServer, ServerListResponse, ServerToolsResponse } from "../contracts/bridge";
export type { HealthResponse } from "../contracts/health";
export type { ListResponse, Memory, MemoryWithHistory } from "../contracts/memory";
export type { RecallResponse, RecallResult } from "../contracts/recall";
export type { SessionDetail, SessionListResponse, SessionMemory, SessionSearchResponse, SessionSummary } from "../contracts/session";
