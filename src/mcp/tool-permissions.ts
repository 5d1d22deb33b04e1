// The permission each of Signet's own MCP tools needs (docs/security.md#roles-and-permissions), the
// tools' counterpart of the route table (src/server/permissions.ts). A token-authenticated /mcp
// request runs each tool with the token's role; a tool missing here is refused to every token.
// The API each tool calls checks its route's permission as well, for the same caller.
import { ROLE_PERMISSIONS, type Permission, type Role } from "../contracts/auth";

export const TOOL_PERMISSIONS: Record<string, Permission> = {
  memory_search: "recall",
  signet_recall: "recall",
  signet_source_search: "recall",
  memory_get: "recall",
  memory_list: "recall",
  memory_store: "remember",
  signet_save_note: "remember",
  memory_modify: "modify",
  memory_forget: "forget",
  memory_feedback: "sessions",
  session_search: "sessions-read",
  signet_session_search: "sessions-read",
  session_bypass: "sessions",
  agent_peers: "messages",
  agent_message_send: "messages",
  agent_message_inbox: "messages",
  // Names only, so an agent can choose what to inject (GET /api/secrets); setting and removing is managing.
  secret_list: "secrets-exec",
  secret_exec: "secrets-exec",
  secret_exec_status: "secrets-exec",
  signet_code_search: "recall",
  signet_code_context: "recall",
  signet_code_blast: "recall",
  signet_code_status: "recall",
  signet_code_doctor: "recall",
  signet_code_constants: "recall",
  signet_code_briefing: "recall",
  signet_code_clear: "sources-manage",
  mcp_server_list: "mcp-call",
  mcp_server_call: "mcp-call",
};

/** Why a caller with `role` may not run `tool`, or null when it may. */
export function toolRefusal(tool: string, role: Role): string | null {
  const need = TOOL_PERMISSIONS[tool];
  if (need === undefined) return `${tool} is not open to tokens (no permission rule names it)`;
  return ROLE_PERMISSIONS[role].has(need) ? null : `${tool} needs permission ${need}, which a ${role} token does not have`;
}
