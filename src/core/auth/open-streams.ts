// Long-lived streams (GET /api/cross-agent/stream, GET /mcp): how many one agent and the daemon hold
// open, and their end with the token that opened them. A stream takes a slot before it is set up
// and frees it when it ends, however it ends; one opened with an API token is closed when that
// token is revoked or expires (TokenService.watch), since the guard checked the token only once, when
// the stream opened. The routes say a refusal in their own shapes.
import type { TokenService } from "./tokens";

export interface StreamCaps {
  /** Streams open at once, every agent's together. */
  total: number;
  /** Streams one agent holds open at once. */
  perAgent: number;
}

/** 64 in all (what /mcp always allowed), a quarter of them for one agent: a few agents cannot starve the rest. */
export const DEFAULT_STREAM_CAPS: StreamCaps = { total: 64, perAgent: 16 };

export interface StreamSlot {
  /** The stream is set up: `close` ends it, and is called when the stream's token is revoked or expires. */
  bind(close: () => void): void;
  /** The stream ended, or never started: the slot is free again. Idempotent. */
  release(): void;
}

export type Admission =
  | { ok: true; slot: StreamSlot }
  /**
   * `agent`: the caller holds its share already, and only the end of one of its own streams frees
   * one; `total`: the daemon holds all it may, and any stream's end frees one.
   */
  | { ok: false; full: "agent" | "total"; message: string };

export class OpenStreams {
  private open = 0;
  /** Streams open per holder: `agent <id>`, or `token <id>` for a token bound to no agent. */
  private readonly byAgent = new Map<string, number>();

  /** `what`: the streams' name in refusals, e.g. "message streams". */
  constructor(
    private readonly what: string,
    private readonly caps: StreamCaps,
    private readonly tokens: Pick<TokenService, "watch">,
  ) {}

  /**
   * A slot for a stream of `agentId`, opened with API token `tokenId` (null: no token), or why not.
   * A token bound to no agent (readonly, operator) may name any agent, so its streams take a share of
   * their own (`unbound`): naming an agent must not let it spend that agent's share.
   */
  admit(agentId: string, tokenId: string | null, unbound = false): Admission {
    const holder = unbound && tokenId !== null ? `token ${tokenId}` : `agent ${agentId}`;
    const held = this.byAgent.get(holder) ?? 0;
    if (held >= this.caps.perAgent) {
      return { ok: false, full: "agent", message: `${holder} already has ${held} ${this.what} open, the most one agent (or unbound token) may hold: close one first` };
    }
    if (this.open >= this.caps.total) return { ok: false, full: "total", message: `${this.caps.total} ${this.what} are already open` };
    this.open++;
    this.byAgent.set(holder, held + 1);
    let released = false;
    let unwatch = () => {};
    return {
      ok: true,
      slot: {
        bind: (close) => {
          if (!released && tokenId !== null) unwatch = this.tokens.watch(tokenId, close);
        },
        release: () => {
          if (released) return;
          released = true;
          unwatch();
          this.open--;
          const left = (this.byAgent.get(holder) ?? 1) - 1;
          if (left === 0) this.byAgent.delete(holder);
          else this.byAgent.set(holder, left);
        },
      },
    };
  }
}
