// The MCP usage boost of recall (docs/api.md#usage-boost): memories tagged `mcp:<server>` or naming
// an installed server's name rank a little higher the more that server is used. Like positive
// feedback it moves the order only, never the score, and by at most USAGE_WEIGHT, so it reorders
// close calls and cannot put a memory above a clearly better text match. The per-server usage comes
// from the scorer features (daily rollups), read at most every refreshMs, never per query: a recall
// uses the latest reading, and one past refreshMs starts the next (which the recalls after it use).
import type { ServerFeatures } from "../../contracts/analytics";

/** At full use a memory ranks as if 10% better (feedback's bound, adjustment.ts). */
const USAGE_WEIGHT = 0.1;
/** Calls per day at which a server's use counts in full; below it the boost grows with log(1 + calls). */
const SATURATION_CALLS_PER_DAY = 20;
const REFRESH_MS = 60_000;

type ServerUse = Pick<ServerFeatures, "server" | "callsPerDay7" | "callsPerDay30">;

export interface UsageBoostOptions {
  refreshMs?: number;
  now?: () => number;
}

interface Snapshot {
  at: number;
  /** Lower-cased server name → strength 0-1 (only servers with some use). */
  strength: Map<string, number>;
  /** Any used server's name as a whole word; null when no server is used. */
  names: RegExp | null;
}

/** A server's strength: its busier rate (last 7 or 30 days) on a log scale, 1 at SATURATION_CALLS_PER_DAY. */
export function usageStrength(use: Pick<ServerUse, "callsPerDay7" | "callsPerDay30">): number {
  const perDay = Math.max(use.callsPerDay7, use.callsPerDay30);
  return Math.min(1, Math.log1p(perDay) / Math.log1p(SATURATION_CALLS_PER_DAY));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export class UsageBoost {
  private snapshot: Snapshot | null = null;
  /** The reading under way, if one is. */
  private reading: Promise<void> | null = null;
  private readonly refreshMs: number;
  private readonly now: () => number;

  /** `usage`: each server's features (Analytics.features); called at most every refreshMs. */
  constructor(
    private readonly usage: () => readonly ServerUse[] | Promise<readonly ServerUse[]>,
    options: UsageBoostOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? REFRESH_MS;
    this.now = options.now ?? Date.now;
  }

  /** The factor on a candidate's rank: 1 to 1 + USAGE_WEIGHT, by the most used server it is tied to. */
  readonly order = (row: { tags: string; content: string }): number => {
    const { strength, names } = this.current();
    if (names === null) return 1;
    let best = 0;
    // Most candidates carry no mcp: tag: a regex test spares parsing their tags.
    if (/"mcp:/i.test(row.tags)) {
      for (const tag of JSON.parse(row.tags) as string[]) {
        if (tag.length > 4 && tag.slice(0, 4).toLowerCase() === "mcp:") best = Math.max(best, strength.get(tag.slice(4).toLowerCase()) ?? 0);
      }
    }
    // One regex pass over the text (measured: far cheaper than lower-casing it or a search per name).
    for (const m of row.content.matchAll(names)) best = Math.max(best, strength.get(m[1]!.toLowerCase()) ?? 0);
    return 1 + USAGE_WEIGHT * best;
  };

  private current(): Snapshot {
    const now = this.now();
    if (!this.reading && (!this.snapshot || now - this.snapshot.at >= this.refreshMs)) void this.refresh(now);
    return this.snapshot ?? { at: now, strength: new Map(), names: null };
  }

  /**
   * Before a recall: the first waits for the first reading; a later one starts the next reading once
   * refreshMs has passed, without waiting for it.
   */
  readonly prepare = (): Promise<void> => {
    if (this.snapshot) {
      this.current();
      return Promise.resolve();
    }
    return this.reading ?? this.refresh();
  };

  /** Reads the usage now; the boost follows once it is read (at once when the usage answers at once). */
  refresh(now = this.now()): Promise<void> {
    let read: readonly ServerUse[] | Promise<readonly ServerUse[]>;
    try {
      read = this.usage();
    } catch {
      this.failed(now);
      return Promise.resolve();
    }
    if (!(read instanceof Promise)) {
      this.snapshot = snapshotOf(read, now);
      return Promise.resolve();
    }
    const reading = read.then(
      (servers) => void (this.snapshot = snapshotOf(servers, now)),
      () => this.failed(now),
    );
    this.reading = reading.finally(() => {
      if (this.reading === settled) this.reading = null;
    });
    const settled = this.reading;
    return reading;
  }

  /** Recall never fails for its boost: the last snapshot (or none) holds until the next refresh. */
  private failed(now: number): void {
    this.snapshot = { ...(this.snapshot ?? { strength: new Map(), names: null }), at: now };
  }
}

function snapshotOf(servers: readonly ServerUse[], at: number): Snapshot {
  const strength = new Map<string, number>();
  for (const s of servers) {
    const v = usageStrength(s);
    if (v > 0) strength.set(s.server.toLowerCase(), Math.max(v, strength.get(s.server.toLowerCase()) ?? 0));
  }
  const alternatives = [...strength.keys()].sort((a, b) => b.length - a.length).map(escape);
  // Word boundaries that also hold for names with - . _ in them.
  const names = alternatives.length === 0 ? null : new RegExp(`(?<![\\w.-])(${alternatives.join("|")})(?![\\w-]|\\.\\w)`, "gi");
  return { at, strength, names };
}
