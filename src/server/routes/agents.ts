// /api/cross-agent/* (docs/api.md#cross-agent): presence, messages, acknowledgements and the live
// stream. The caller's agent comes from callerFrom (an agent token's agent wins), never from a query
// parameter: a parameter naming another agent is refused by the service.
import { Elysia } from "elysia";
import {
  AckRequestSchema,
  InboxQuerySchema,
  MessageSendSchema,
  PresenceDeleteQuerySchema,
  PresenceQuerySchema,
  PresenceRequestSchema,
  StreamQuerySchema,
  type AgentMessage,
} from "../../contracts/agents";
import { invalidInput } from "../../contracts/errors";
import { parseInput } from "../../contracts/parse";
import { normalizeSessionKey } from "../../contracts/session";
import { ownAgent, type AgentsService } from "../../core/agents/service";
import { DEFAULT_STREAM_CAPS, OpenStreams, type StreamSlot } from "../../core/auth/open-streams";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { errorResponse } from "../http-errors";
import { principalOf, tokenIdOf } from "../principal";

/** The replay and each live batch read this many messages at a time. */
const BATCH = 500;

function lastEventId(request: Request, fromQuery: number | undefined): number | undefined {
  const header = request.headers.get("last-event-id")?.trim();
  if (header === undefined || header === "") return fromQuery;
  if (!/^\d{1,15}$/.test(header)) throw invalidInput("invalid Last-Event-ID header: must be a message id (a whole number)");
  return Number(header);
}

const event = (m: AgentMessage) => `id: ${m.id}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`;

/**
 * The caller's messages after `cursor` as server-sent events: first what was missed, then each new
 * one as it is stored, with a keep-alive comment every `keepAliveS`. Ends when the client goes, the
 * daemon stops, or the token it was opened with is revoked or expires; then `slot` is freed.
 */
function messageStream(
  agents: AgentsService,
  scope: { agentId: string; sessionKey?: string; includeBroadcast: boolean },
  cursor: number,
  keepAliveS: number,
  signal: AbortSignal,
  slot: StreamSlot,
): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const write = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      const pump = () => {
        for (let batch = BATCH; batch === BATCH && !closed; ) {
          const missed = agents.missed({ ...scope, afterId: cursor }, BATCH);
          for (const m of missed) {
            write(event(m));
            cursor = m.id;
          }
          batch = missed.length;
        }
      };
      const keepAlive = setInterval(() => write(": keep-alive\n\n"), keepAliveS * 1000);
      let unlisten: (() => void) | null = null;
      stop = () => {
        if (closed) return;
        closed = true;
        clearInterval(keepAlive);
        unlisten?.();
        slot.release();
        signal.removeEventListener("abort", stop);
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      signal.addEventListener("abort", stop);
      unlisten = agents.listen({ notify: pump, close: stop });
      if (unlisten === null) return stop();
      slot.bind(stop);
      // Bun sends the headers with the first byte: a comment at once tells the client it is open.
      write(": connected\n\n");
      pump();
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" },
  });
}

export function agentRoutes(ctx: DaemonContext) {
  const { agents } = ctx;
  const streams = new OpenStreams("message streams", DEFAULT_STREAM_CAPS, ctx.tokens);
  return new Elysia()
    .get("/api/cross-agent/presence", ({ query, request }) => {
      const q = parseInput(PresenceQuerySchema, query, "presence query");
      return agents.presence(callerFrom(request).agentId, q);
    })
    .post("/api/cross-agent/presence", ({ body, request }) => {
      const req = parseInput(PresenceRequestSchema, body, "presence request");
      return agents.heartbeat(callerFrom(request).agentId, req);
    })
    .delete("/api/cross-agent/presence", ({ query, request }) => {
      const q = parseInput(PresenceDeleteQuerySchema, query, "presence query");
      return agents.leave(callerFrom(request).agentId, q.session_key, q.agent_id);
    })
    .post("/api/cross-agent/messages", async ({ body, request, set }) => {
      const req = parseInput(MessageSendSchema, body, "message");
      const sent = await agents.send(callerFrom(request).agentId, req);
      set.status = 201;
      return sent;
    })
    .get("/api/cross-agent/messages", ({ query, request }) => {
      const q = parseInput(InboxQuerySchema, query, "inbox query");
      return agents.inbox(callerFrom(request).agentId, q);
    })
    .post("/api/cross-agent/messages/ack", ({ body, request }) => {
      const req = parseInput(AckRequestSchema, body, "acknowledgement");
      return agents.ack(callerFrom(request).agentId, req.ids);
    })
    .get("/api/cross-agent/stream", ({ query, request }) => {
      const q = parseInput(StreamQuerySchema, query, "stream query");
      const { agentId } = callerFrom(request);
      ownAgent(agentId, q.agent_id, "agent_id");
      const cursor = lastEventId(request, q.last_event_id) ?? agents.latestId();
      if (!agents.accepting) return errorResponse("unavailable", "the daemon is stopping");
      const admission = streams.admit(agentId, tokenIdOf(principalOf(request)));
      if (!admission.ok) {
        // Past the agent's share, retrying helps only once one of its own streams ends: 429. Past the
        // total, the daemon is full for everyone and any stream's end frees a slot: 503, as for /mcp.
        return admission.full === "agent"
          ? errorResponse("rate_limited", admission.message)
          : errorResponse("unavailable", `${admission.message}; retry shortly`, { "Retry-After": "1" });
      }
      // A stream is idle between messages for as long as it likes; keep-alives are for proxies.
      ctx.setIdleTimeout?.(request, 0);
      const sessionKey = q.session_key === undefined ? undefined : normalizeSessionKey(q.session_key);
      const scope = { agentId, sessionKey, includeBroadcast: q.include_broadcast };
      return messageStream(agents, scope, cursor, ctx.config.crossAgent.keepAliveS, request.signal, admission.slot);
    });
}
