// Who is calling, from the request: agent id (an agent token's agent > body/query > header > default) and
// provenance headers.
// Provenance is recorded, never trusted for permissions.
import { AgentIdSchema, DEFAULT_AGENT_ID } from "../contracts/agent";
import { invalidInput } from "../contracts/errors";
import type { Caller } from "../core/memory/service";
import { boundAgent, principalOf } from "./principal";

const PROVENANCE_MAX = 100;

function header(request: Request, name: string): string | null {
  const v = request.headers.get(name)?.trim();
  return v ? v.slice(0, PROVENANCE_MAX) : null;
}

export function callerFrom(request: Request, explicitAgentId?: string): Caller {
  const fromHeader = request.headers.get("x-signet-agent-id")?.trim() || undefined;
  // An agent token acts as its agent, whatever the body or the headers say (SPEC §3).
  const agentId = boundAgent(principalOf(request)) ?? explicitAgentId ?? fromHeader ?? DEFAULT_AGENT_ID;
  if (!AgentIdSchema.safeParse(agentId).success) {
    throw invalidInput(`invalid agent id ${JSON.stringify(agentId)}: use 1-128 letters, digits and . _ : @ -`);
  }
  return {
    agentId,
    actor: header(request, "x-signet-actor"),
    actorType: header(request, "x-signet-actor-type"),
    runtimePath: header(request, "x-signet-runtime-path"),
  };
}
