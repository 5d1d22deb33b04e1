// The cross-agent routes (docs/api.md#cross-agent): presence, messages, acknowledgements and the live
// stream. The caller's agent comes from callerFrom (an agent token's agent wins), never from a query
// parameter: a parameter naming another agent is refused by the service.
import { AGENTS_API, type AgentMessage } from "../../contracts/agents";
import { invalidInput } from "../../contracts/errors";
import { normalizeSessionKey } from "../../contracts/session";
import { ownAgent, type AgentsService } from "../../core/agents/service";
import { DEFAULT_STREAM_CAPS, OpenStreams, type StreamSlot } from "../../core/auth/open-streams";
import { callerFrom } from "../caller";
import type { DaemonContext } from "../context";
import { errorResponse } from "../http-errors";
import { principalOf, tokenIdOf, unboundToken } from "../principal";
import { routes, serve } from "../serve";

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
 * one as it is stored, in id order and once each (AgentsService.streamPage), with a keep-alive
 * comment every `keepAliveS`. Ends when the client goes, the daemon stops, or the token it was
 * opened with is revoked or expires; then `slot` is freed.
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
      // One read at a time: a notice during a read makes one more read after it, from the cursor.
      let reading = false;
      let again = false;
      const pump = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            for (let batch = BATCH; batch === BATCH && !closed; ) {
              const page = await agents.streamPage({ ...scope, afterId: cursor }, BATCH);
              for (const m of page.messages) write(event(m));
              cursor = page.through;
              batch = page.messages.length;
            }
          } while (again && !closed);
        } catch {
          // The store is unreachable: the stream ends, and the client reconnects from its last event.
          stop();
        } finally {
          reading = false;
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
      unlisten = agents.listen({ notify: () => void pump(), close: stop });
      if (unlisten === null) return stop();
      slot.bind(stop);
      // Bun sends the headers with the first byte: a comment at once tells the client it is open.
      write(": connected\n\n");
      void pump();
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
  return routes(
    serve(AGENTS_API.presence, ({ query, request }) => agents.presence(callerFrom(request).agentId, query)),
    serve(AGENTS_API.heartbeat, ({ body, request }) => agents.heartbeat(callerFrom(request).agentId, body)),
    serve(AGENTS_API.leave, ({ query, request }) => agents.leave(callerFrom(request).agentId, query.session_key, query.agent_id)),
    serve(AGENTS_API.send, async ({ body, request, set }) => {
      const sent = await agents.send(callerFrom(request).agentId, body);
      set.status = 201;
      return sent;
    }),
    serve(AGENTS_API.inbox, ({ query, request }) => agents.inbox(callerFrom(request).agentId, query)),
    serve(AGENTS_API.ack, ({ body, request }) => agents.ack(callerFrom(request).agentId, body.ids)),
    serve(AGENTS_API.watch, async ({ query, request }) => {
      const { agentId } = callerFrom(request);
      ownAgent(agentId, query.agent_id, "agent_id");
      const cursor = lastEventId(request, query.last_event_id) ?? (await agents.latestId());
      if (!agents.accepting) return errorResponse("unavailable", "the daemon is stopping");
      const opener = principalOf(request);
      const admission = streams.admit(agentId, tokenIdOf(opener), unboundToken(opener));
      if (!admission.ok) {
        // Past the agent's share, retrying helps only once one of its own streams ends: 429. Past the
        // total, the daemon is full for everyone and any stream's end frees a slot: 503, as for /mcp.
        return admission.full === "agent"
          ? errorResponse("rate_limited", admission.message)
          : errorResponse("unavailable", `${admission.message}; retry shortly`, { "Retry-After": "1" });
      }
      // A stream is idle between messages for as long as it likes; keep-alives are for proxies.
      ctx.setIdleTimeout?.(request, 0);
      const sessionKey = query.session_key === undefined ? undefined : normalizeSessionKey(query.session_key);
      const scope = { agentId, sessionKey, includeBroadcast: query.include_broadcast };
      return messageStream(agents, scope, cursor, ctx.config.crossAgent.keepAliveS, request.signal, admission.slot);
    }),
  );
}
