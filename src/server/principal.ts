// Who a request acts for, as the guard decided it (docs/security.md#who-a-request-acts-for). The
// guard records it on the request; routes read it (the caller's agent, src/server/caller.ts), and
// requests the daemon hands itself on a caller's behalf (MCP tool handlers calling the API) carry
// their caller's principal instead of being judged afresh: they have no TCP peer, and must never
// pass for a loopback one.
import { ROLE_PERMISSIONS, type Permission, type Role } from "../contracts/auth";

export type Principal =
  /** Local mode, a loopback peer in hybrid mode, or the owner's admin credential: every permission. */
  | { kind: "trusted"; via: "local" | "loopback" | "owner" }
  /** An API token: its role's permissions; an agent token acts as its agent whatever the request says. */
  | { kind: "token"; tokenId: string; role: Role; agentId: string | null }
  /** No credential where one is needed (team mode, remote peers in hybrid): public routes only. */
  | { kind: "anonymous"; loopback: boolean };

const principals = new WeakMap<Request, Principal>();

export function setPrincipal(request: Request, principal: Principal): void {
  principals.set(request, principal);
}

export function principalOf(request: Request): Principal | undefined {
  return principals.get(request);
}

/** `to` (a rebuilt copy of `from`) acts for the same principal. */
export function carryPrincipal(from: Request, to: Request): Request {
  const principal = principals.get(from);
  if (principal && to !== from) principals.set(to, principal);
  return to;
}

/** The agent a principal is bound to, overriding headers and bodies (SPEC §3). */
export function boundAgent(principal: Principal | undefined): string | undefined {
  return principal?.kind === "token" ? (principal.agentId ?? undefined) : undefined;
}

/** The API token a principal holds, null for any other caller: what ends with the token (its streams). */
export function tokenIdOf(principal: Principal | undefined): string | null {
  return principal?.kind === "token" ? principal.tokenId : null;
}

/** Whether a principal is an API token bound to no agent (readonly, operator): it may name any agent. */
export function unboundToken(principal: Principal | undefined): boolean {
  return principal?.kind === "token" && principal.agentId === null;
}

/** Whether the request's caller holds `permission`: trusted callers hold every one, tokens their role's. */
export function mayDo(request: Request, permission: Permission): boolean {
  const principal = principals.get(request);
  if (!principal || principal.kind === "anonymous") return false;
  return principal.kind === "trusted" || ROLE_PERMISSIONS[principal.role].has(permission);
}
