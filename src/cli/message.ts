// `signet message send | inbox | watch` (docs/api.md#messages): messages between agents, as the
// agent this CLI acts as (--agent, SIGNET_AGENT_ID or agent.id). watch follows the live stream.
// The daemon checks each request with the operation's schema and its refusal names the field
// (exit 2): checking it here first would load zod at every command (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { DaemonUnreachableError } from "../client/client";
import type { AgentMessage, InboxResponse, MessageSendRequest } from "../contracts/agents";
import { defined } from "../contracts/parse";
import { MESSAGE_TYPES } from "../contracts/vocabulary";
import { createLogger } from "../logger";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { num } from "./flags";
import { emit, wantsJson, writeJson, writeText } from "./output";

function line(m: AgentMessage): string {
  const to = m.broadcast ? "everyone" : m.toSessionKey ? `${m.toAgentId}/${m.toSessionKey}` : (m.toAgentId ?? `acp:${m.acpTargetAgentName}`);
  const delivery = m.via === "acp" ? ` [acp ${m.deliveryStatus}${m.deliveryError ? `: ${m.deliveryError}` : ""}]` : "";
  return `#${m.id} ${m.createdAt.slice(0, 19).replace("T", " ")} ${m.type} ${m.fromAgentId} -> ${to}${delivery}${m.acked ? "" : " *"}\n  ${m.content}`;
}

const send = defineCommand({
  meta: { name: "send", description: "Send a message to an agent (--to), a session (--session) or everyone (--broadcast)" },
  args: {
    content: { type: "positional", text: true, description: "The message (up to 16 KiB)", required: true },
    to: { type: "string", description: "The agent to send to" },
    session: { type: "string", description: "The session to send to (its agent receives it)" },
    broadcast: { type: "boolean", description: "Send to every agent" },
    type: { type: "string", description: `One of ${MESSAGE_TYPES.join(", ")} (default info)` },
    "from-session": { type: "string", description: "Your session, shown to the receiver" },
    via: { type: "string", description: "local (default) or acp" },
    "acp-url": { type: "string", description: "With --via acp: the ACP server's base URL (an origin in acp.allowedOrigins)" },
    "acp-agent": { type: "string", description: "With --via acp: the ACP agent to run" },
    "acp-timeout": { type: "string", description: "With --via acp: milliseconds to wait for the ACP server (default 20000)" },
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({
      content: args.content,
      // Any other word is the daemon's to refuse, naming the field.
      type: args.type as MessageSendRequest["type"] | undefined,
      toAgentId: args.to,
      toSessionKey: args.session,
      broadcast: args.broadcast || undefined,
      fromSessionKey: args["from-session"],
      via: args.via as MessageSendRequest["via"] | undefined,
      acpBaseUrl: args["acp-url"],
      acpTargetAgentName: args["acp-agent"],
      acpTimeoutMs: num("acp-timeout", args["acp-timeout"]),
    });
    const sent = await clientFor(configFromFlags(args)).agents.send(body);
    // Stored all the same: the agent may simply not have started yet. Usually it is a typo.
    if (sent.meta.unknownRecipient) {
      createLogger("signet").warn(
        `agent ${sent.toAgentId} was never seen by this daemon (no session, message or memory of it): check the name with \`signet agents --all\`; the message waits for it`,
      );
    }
    emit(sent, args, (m) => `sent ${line(m)}`);
  },
});

const inbox = defineCommand({
  meta: { name: "inbox", description: "Messages to your agent, your session, or everyone, oldest first (* unread)" },
  args: {
    session: { type: "string", description: "Only what was sent to this session of yours, to your agent, or broadcast" },
    since: { type: "string", description: "Only messages sent at or after this ISO-8601 time" },
    sent: { type: "boolean", description: "Include the messages you sent" },
    "no-broadcast": { type: "boolean", description: "Leave out broadcasts" },
    unread: { type: "boolean", description: "Only messages not yet acknowledged" },
    limit: { type: "string", description: "At most this many, the newest (default 50, max 500)" },
    ack: { type: "boolean", description: "Acknowledge the messages shown" },
    ...clientArgs,
  },
  async run({ args }) {
    const query = defined({
      session_key: args.session,
      since: args.since,
      include_sent: args.sent ? "true" : undefined,
      include_broadcast: args["no-broadcast"] ? "false" : undefined,
      unread: args.unread ? "true" : undefined,
      limit: num("limit", args.limit)?.toString(),
    });
    const client = clientFor(configFromFlags(args));
    const result: InboxResponse & { acked?: number[] } = await client.agents.inbox(query);
    // The daemon acknowledges only what this agent received (not its own sent messages).
    const unacked = result.items.filter((m) => !m.acked).map((m) => m.id);
    if (args.ack && unacked.length > 0) result.acked = (await client.agents.ack({ ids: unacked })).acked;
    emit(result, args, (r) => (r.count === 0 ? "no messages" : r.items.map(line).join("\n")));
  },
});

/** How long `watch` waits before it reconnects to a stream the daemon ended. */
const RECONNECT_PAUSE_MS = 500;

const watch = defineCommand({
  meta: { name: "watch", description: "Print messages as they arrive (one JSON object a line when not on a terminal); Ctrl-C ends it" },
  args: {
    session: { type: "string", description: "Only what is sent to this session of yours, to your agent, or broadcast" },
    "after-id": { type: "string", description: "First replay the messages after this id (what was missed), then follow" },
    "no-broadcast": { type: "boolean", description: "Leave out broadcasts" },
    ...clientArgs,
  },
  async run({ args }) {
    const query = defined({
      session_key: args.session,
      include_broadcast: args["no-broadcast"] ? "false" : undefined,
      last_event_id: num("after-id", args["after-id"])?.toString(),
    });
    const json = wantsJson(args);
    // Ctrl-C is how a watch ends: exit 0, not the 130 of an interrupted command.
    process.once("SIGINT", () => process.exit(0));
    const config = configFromFlags(args);
    let client = clientFor(config);
    let after = query.last_event_id;
    // The daemon ends a stream when it stops, when the stream's token is revoked or expires, and when
    // its store stops answering. Reconnecting after the last message seen tells which: a refused
    // token is its 401 (exit 4), a daemon gone is exit 3, and a store back follows on. A reconnect
    // never starts a daemon: one stopped on purpose stays stopped.
    for (let quickEnds = 0, reconnecting = false; ; reconnecting = true) {
      const opened = Date.now();
      try {
        for await (const m of client.agents.watch({ ...query, last_event_id: after })) {
          after = String(m.id);
          if (json) writeJson(m, { compact: true });
          else writeText(line(m));
        }
      } catch (err) {
        if (reconnecting && err instanceof DaemonUnreachableError) throw new DaemonUnreachableError(client.baseUrl, "the daemon ended the stream, and no longer answers");
        throw err;
      }
      quickEnds = Date.now() - opened < RECONNECT_PAUSE_MS * 2 ? quickEnds + 1 : 0;
      if (quickEnds >= 3) throw new DaemonUnreachableError(client.baseUrl, "the daemon keeps ending the stream");
      await Bun.sleep(RECONNECT_PAUSE_MS);
      client = clientFor(config, "cli", { autostart: false });
    }
  },
});

export const message = defineCommand({
  meta: { name: "message", description: COMMAND_DESCRIPTIONS.message },
  subCommands: { send, inbox, watch },
});
