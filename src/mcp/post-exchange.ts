// One POST to /mcp as its transport handles it: the requests of its body, the answers the server
// sends them, and the requests a cancellation in the same body took back. In JSON response mode the
// SDK's transport answers a POST once every request of it has an answer, and a cancelled request
// never gets one (src/mcp/cancellation.ts): such a POST would never end, and its slot never free.
// So when the body cancels any of its requests, this ends the POST itself as soon as each request
// is answered or cancelled: with the answers there are, or 202 Accepted and no body when none is
// left to answer (what Streamable HTTP answers to input that needs no response). It also answers
// a POST cut short by the route's deadline.
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { cancelledIdOf, requestIdOf } from "./cancellation";

export class PostExchange {
  /** The body's requests, in order. */
  private readonly requests: RequestId[] = [];
  /** Requests a cancellation in the same body names: the SDK's Protocol answers none of them. */
  private readonly cancelled = new Set<RequestId>();
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private readonly messages: number;
  private delivered = 0;
  private finish!: (response: Response) => void;
  /**
   * Resolves when the body cancels a request and every request is answered or cancelled (the SDK's
   * own answer never comes then); stays pending otherwise, the SDK's answer being the POST's.
   */
  readonly settled = new Promise<Response>((resolve) => (this.finish = resolve));

  /** Watches `transport`, which its server is connected to already, for `body`. */
  constructor(body: unknown, transport: WebStandardStreamableHTTPServerTransport) {
    const messages = Array.isArray(body) ? body : [body];
    this.messages = messages.length;
    const ids = new Set<RequestId>();
    for (const message of messages) {
      const id = requestIdOf(message);
      if (id !== undefined && !ids.has(id)) {
        this.requests.push(id);
        ids.add(id);
      }
    }
    // The transport hands the SDK every message of the body at once, so a cancellation anywhere in
    // it reaches the request while its handler runs: the SDK drops the result.
    for (const message of messages) {
      const id = cancelledIdOf(message);
      if (id !== undefined && ids.has(id)) this.cancelled.add(id);
    }
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      if (("result" in message || "error" in message) && message.id !== undefined) this.answers.set(message.id, message);
      try {
        await send(message, options);
      } finally {
        this.check();
      }
    };
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      deliver?.(message, extra);
      // Once the whole body is delivered, a POST whose requests are all cancelled is done already.
      if (++this.delivered === this.messages) this.check();
    };
  }

  private check(): void {
    if (this.cancelled.size === 0 || this.delivered < this.messages) return;
    if (this.requests.every((id) => this.answers.has(id) || this.cancelled.has(id))) this.finish(this.answer());
  }

  /**
   * The POST's answer when its time is up: the answers sent so far, and for each request still
   * without one (and not cancelled) a JSON-RPC timeout error naming the limit.
   */
  timedOut(afterMs: number): Response {
    const late = new Map<RequestId, JSONRPCMessage>();
    for (const id of this.requests) {
      if (this.answers.has(id) || this.cancelled.has(id)) continue;
      const message = `Request timed out: no answer within ${afterMs} ms, the most a POST to /mcp may take`;
      late.set(id, { jsonrpc: "2.0", id, error: { code: ErrorCode.RequestTimeout, message } });
    }
    return this.answer(late);
  }

  /** The answer to each request that has one (or one in `more`), in the body's order: one object, an array, or 202 when none has. */
  private answer(more = new Map<RequestId, JSONRPCMessage>()): Response {
    const all = this.requests.flatMap((id) => this.answers.get(id) ?? more.get(id) ?? []);
    if (all.length === 0) return new Response(null, { status: 202 });
    return Response.json(all.length === 1 ? all[0] : all, { status: 200 });
  }
}
