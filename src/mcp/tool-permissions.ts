// Whether a token's role may run one of Signet's own MCP tools (docs/security.md#roles-and-permissions):
// the tool needs the permission of the operation it calls (src/mcp/tool.ts), so a token-authenticated
// /mcp request runs each tool with the token's role. The API checks its route's permission as well.
import { ROLE_PERMISSIONS, lackedPermission, type Role } from "../contracts/auth";
import type { Operation } from "../contracts/operation";

/** Why a caller with `role` may not run `tool`, which calls `op`, or null when it may. */
export function toolRefusal(tool: string, op: Operation, role: Role): string | null {
  const need = op.need;
  if (need === "public" || need === "signed-in") return null;
  return ROLE_PERMISSIONS[role].has(need) ? null : `${tool} needs ${lackedPermission(role, need)}`;
}
