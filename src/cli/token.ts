// `signet token create | list | revoke` (docs/security.md#tokens): API tokens for team and hybrid
// modes. Managing them needs the owner's admin token, which this CLI reads from the data directory.
// The daemon checks each request with the operation's schema and its refusal names the field
// (exit 2): checking it here first would load zod at every command (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import type { TokenCreateRequest, TokenInfo } from "../contracts/auth";
import { defined } from "../contracts/parse";
import { ROLES } from "../contracts/vocabulary";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { emit, wantsJson } from "./output";
import { textTable } from "./table";

function describe(t: TokenInfo): string {
  const bound = t.agentId ? ` for agent ${t.agentId}` : "";
  const until = t.revokedAt ? `revoked ${t.revokedAt}` : t.expiresAt ? `expires ${t.expiresAt}` : "does not expire";
  return `${t.id} (${t.role}${bound}${t.name ? `, "${t.name}"` : ""}): ${until}`;
}

// --agent names the token's agent here, so create takes every client flag but the caller's agent.
const { agent: _callerAgent, ...createClientArgs } = clientArgs;

const create = defineCommand({
  meta: { name: "create", description: "Create an API token and print it once (only its hash is kept)" },
  args: {
    role: { type: "string", description: `One of ${ROLES.join(", ")}`, required: true },
    agent: { type: "string", description: "For --role agent: the agent the token acts as, whatever a request says" },
    expires: { type: "string", description: "Lifetime such as 30d, 12h, 90m or 2w (default: until revoked)" },
    name: { type: "string", description: "A label shown by `signet token list`" },
    ...createClientArgs,
  },
  async run({ args }) {
    // Any other role is the daemon's to refuse, naming the field.
    const body = defined({ role: args.role as TokenCreateRequest["role"], agentId: args.agent, expires: args.expires, name: args.name });
    const config = configFromFlags({ url: args.url });
    const result = await clientFor(config).tokens.create(body);
    // Memories are scoped by agent: a token bound to another agent than the store's sees none of its memories.
    const store = config.agent.id;
    const scope =
      result.agentId !== null && result.agentId !== store && config.agents[store]?.readPolicy !== "shared"
        ? `It acts as agent ${result.agentId}: it sees that agent's memories and those of agents whose agents.<id>.readPolicy is shared, and none of agent ${store}'s (the agent this CLI acts as, and the one \`signet setup\` binds a harness's token to).`
        : undefined;
    if (scope !== undefined && wantsJson(args)) process.stderr.write(`signet: ${scope}\n`);
    emit(result, args, (t) =>
      [`${t.token}`, "", describe(t), ...(scope ? [scope] : []), "This is the only time the token is shown: store it now (clients read SIGNET_TOKEN, or SIGNET_TOKEN_FILE naming a 0600 file that holds it)."].join("\n"),
    );
  },
});

const list = defineCommand({
  meta: { name: "list", description: "List API tokens (ids, roles, agents, expiry; never the tokens)" },
  args: { ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).tokens.list();
    emit(result, args, ({ tokens }) =>
      tokens.length === 0
        ? "no tokens (create one with `signet token create --role ...`)"
        : textTable(
            ["id", "role", "agent", "name", "created", "expires", "revoked"],
            tokens.map((t) => [t.id, t.role, t.agentId ?? "", t.name ?? "", t.createdAt, t.expiresAt ?? "never", t.revokedAt ?? ""]),
          ),
    );
  },
});

const revoke = defineCommand({
  meta: { name: "revoke", description: "Revoke an API token: refused from the next request on" },
  args: { id: { type: "positional", description: "The token's id (tok_..., from `signet token list`)", required: true }, ...clientArgs },
  async run({ args }) {
    const result = await clientFor(configFromFlags(args)).tokens.revoke(args.id);
    emit(result, args, (t) => `revoked ${describe(t)}`);
  },
});

export const token = defineCommand({
  meta: { name: "token", description: COMMAND_DESCRIPTIONS.token },
  subCommands: { create, list, revoke },
});
