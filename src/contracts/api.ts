// The daemon's whole API: every operation, by area, with its schemas. The routes and the MCP tools
// read it; the client, the hook and the dashboard read only the routes (routes.ts), zod-free.
import { AGENTS_API } from "./agents";
import { ANALYTICS_API } from "./analytics";
import { BRIDGE_API } from "./bridge";
import { CODE_API } from "./code";
import { EMBED_API } from "./embed";
import { GRAPH_API } from "./graph";
import { HEALTH_API } from "./health";
import { MEMORY_API } from "./memory";
import type { Operation } from "./operation";
import { RECALL_API } from "./recall";
import { SECRETS_API } from "./secrets";
import { HOOKS_API, SESSIONS_API } from "./session";
import { SOURCES_API } from "./sources";
import { TOKENS_API } from "./tokens";
import { TRANSFER_API } from "./transfer";

export const API = {
  health: HEALTH_API,
  memory: MEMORY_API,
  recall: RECALL_API,
  embed: EMBED_API,
  hooks: HOOKS_API,
  sessions: SESSIONS_API,
  code: CODE_API,
  sources: SOURCES_API,
  agents: AGENTS_API,
  analytics: ANALYTICS_API,
  graph: GRAPH_API,
  tokens: TOKENS_API,
  transfer: TRANSFER_API,
  bridge: BRIDGE_API,
  secrets: SECRETS_API,
};

export const OPERATIONS: Operation[] = Object.values(API).flatMap((area) => Object.values(area));
