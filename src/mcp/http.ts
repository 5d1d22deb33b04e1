// The pieces of MCP Streamable HTTP that are not Elysia's business: JSON-RPC error answers and the
// hub of open GET streams that carries server notifications and is closed when the daemon stops.
// (Host and Origin are the request guard's: src/server/guard.ts.)
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { StreamSlot } from "../core/auth/open-streams";

/** JSON-RPC error codes used at the HTTP layer (the SDK's transport uses the same ones). */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_INTERNAL_ERROR = -32603;
/** Implementation-defined server error: forbidden, too large, busy, method not allowed. */
export const JSONRPC_SERVER_ERROR = -32000;

/** `{jsonrpc: "2.0", error: {code, message}, id: null}` with an HTTP status: what MCP clients expect. */
export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

// ---------------------------------------------------------------------------------------------
// Open GET streams.

export function shuttingDown(): Response {
  return jsonRpcError(503, JSONRPC_SERVER_ERROR, "Server is shutting down", { "Retry-After": "1" });
}

const encoder = new TextEncoder();

interface OpenStream {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
}

/**
 * Every open GET /mcp stream. `broadcast` sends a server notification (for example
 * `notifications/tools/list_changed`) to all of them; `closeAll` ends them so the HTTP server can
 * stop without waiting on streams that would otherwise never end.
 */
export class McpStreamHub {
  private readonly streams = new Set<OpenStream>();
  private closing = false;

  /** How many streams are open now. */
  get size(): number {
    return this.streams.size;
  }

  /** False once `closeAll` has run: no new stream may open. */
  get accepting(): boolean {
    return !this.closing;
  }

  /**
   * Adopts the SSE answer of a GET: a comment is sent at once (Bun sends no headers before the first
   * byte), the stream is registered, and when it ends (client gone, daemon stopping, its token
   * revoked or expired) the server and its transport are closed, which clears the transport's
   * keep-alive timer, and its slot is freed.
   */
  async adopt(server: McpServer, transport: WebStandardStreamableHTTPServerTransport, response: Response, slot: StreamSlot): Promise<Response> {
    const inner = response.body;
    if (!inner || this.closing) {
      // Nothing to adopt, or the daemon began stopping while this stream was being set up: it must
      // not outlive the stop.
      slot.release();
      await server.close().catch(() => {});
      return inner ? shuttingDown() : response;
    }
    const reader = inner.getReader();
    let ended = false;
    const entry: OpenStream = {
      server,
      transport,
      close: async () => {
        if (ended) return;
        ended = true;
        this.streams.delete(entry);
        slot.release();
        // Closing the server closes the transport: its stream cleanup clears the keep-alive timer
        // and closes the inner stream, which ends the outer one below.
        await server.close().catch(() => {});
      },
    };
    this.streams.add(entry);
    slot.bind(() => void entry.close());
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controller.enqueue(encoder.encode(": connected\n\n"));
        },
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              controller.close();
              await entry.close();
            } else {
              controller.enqueue(value);
            }
          } catch {
            try {
              controller.close();
            } catch {
              // already closed
            }
            await entry.close();
          }
        },
        async cancel() {
          await entry.close();
          await reader.cancel().catch(() => {});
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** Sends a server notification on every open stream; a stream that fails is closed. */
  async broadcast(notification: JSONRPCNotification): Promise<void> {
    await Promise.all(
      [...this.streams].map((s) => s.transport.send(notification).catch(() => s.close())),
    );
  }

  /** `notifications/tools/list_changed`, for when the set of tools (installed servers) changes. */
  toolsChanged(): Promise<void> {
    return this.broadcast({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  }

  /** Ends every stream and refuses new ones; the daemon calls this before stopping its HTTP server. */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.streams].map((s) => s.close()));
  }
}
