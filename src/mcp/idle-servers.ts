// The servers /mcp keeps between requests. Stateless Streamable HTTP needs a transport per request,
// but not a server: building one (a client and the tool table's 29 registrations) cost about a tenth
// of a tool call. A server acts for one caller (its tools' client carries the caller's agent, token
// and session), so servers are kept per caller, a few each, for the callers seen last.

/** Idle servers by caller key, the callers used least recently first (a Map keeps insertion order). */
export class IdleServers<S> {
  private readonly byCaller = new Map<string, S[]>();

  constructor(
    /** Callers whose servers are kept; the one used least recently goes first. */
    private readonly maxCallers = 64,
    /** Servers kept per caller: as many as its requests that ran at once, up to this. */
    private readonly perCaller = 4,
  ) {}

  /** An idle server for `key`, which is the caller's until given back; undefined when none is idle. */
  take(key: string): S | undefined {
    const idle = this.byCaller.get(key);
    const server = idle?.pop();
    if (idle?.length === 0) this.byCaller.delete(key);
    return server;
  }

  /** `server`, done with a request and disconnected, is idle again for `key`. */
  give(key: string, server: S): void {
    const idle = this.byCaller.get(key) ?? [];
    this.byCaller.delete(key);
    if (idle.length < this.perCaller) idle.push(server);
    this.byCaller.set(key, idle);
    if (this.byCaller.size > this.maxCallers) this.byCaller.delete(this.byCaller.keys().next().value!);
  }

  /** How many servers are idle now (for tests). */
  get size(): number {
    let n = 0;
    for (const idle of this.byCaller.values()) n += idle.length;
    return n;
  }
}
