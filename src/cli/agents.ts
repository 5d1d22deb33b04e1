// `signet agents` (docs/api.md#presence): the agent sessions present now, from the daemon's presence
// entries (registered by session-start or a heartbeat, gone after crossAgent.presenceTtlS). The
// daemon checks the flags with the operation's schema and its refusal names the one it refuses
// (exit 2): checking them here first would load zod at every command (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import type { PresenceListResponse } from "../contracts/agents";
import { defined } from "../contracts/parse";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { num } from "./flags";
import { emit } from "./output";
import { textTable } from "./table";

function render(r: PresenceListResponse): string {
  if (r.count === 0) return "no other agent sessions are present (--all includes your own agent's)";
  return textTable(
    ["agent", "session", "harness", "project", "last seen"],
    r.sessions.map((s) => [s.agentId, s.sessionKey, s.harness, s.project ?? "", s.lastSeenAt]),
  );
}

export const agents = defineCommand({
  meta: { name: "agents", description: COMMAND_DESCRIPTIONS.agents },
  args: {
    all: { type: "boolean", description: "Include your own agent's sessions" },
    project: { type: "string", description: "Only sessions working in this project" },
    limit: { type: "string", description: "At most this many sessions (default 50, max 500)" },
    ...clientArgs,
  },
  async run({ args }) {
    const query = defined({ include_self: args.all ? "true" : undefined, project: args.project, limit: num("limit", args.limit)?.toString() });
    emit(await clientFor(configFromFlags(args)).agents.presence(query), args, render);
  },
});
