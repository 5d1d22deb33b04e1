// Reads a server-sent event stream in tests: events (id, event, data) and comments as they arrive.
interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  /** performance.now() when it was read. */
  at: number;
}

export interface SseReader {
  status: number;
  contentType: string | null;
  /** Waits for the next event or comment matching `pred`, at most `ms`. */
  next(pred?: (e: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  /** Everything read so far. */
  seen: SseEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const seen: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let cursor = 0;
  const ended = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const e: SseEvent = { at: performance.now() };
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) e.comment = line.slice(1).trim();
            else if (line.startsWith("id: ")) e.id = line.slice(4);
            else if (line.startsWith("event: ")) e.event = line.slice(7);
            else if (line.startsWith("data: ")) e.data = line.slice(6);
          }
          seen.push(e);
          for (const w of waiters) w();
        }
      }
    } catch {
      // aborted by close()
    }
    for (const w of waiters) w();
  })();
  let done = false;
  void ended.then(() => (done = true));
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    seen,
    ended,
    close: () => abort.abort(),
    async next(pred = () => true, ms = 5000) {
      const deadline = Date.now() + ms;
      for (;;) {
        while (cursor < seen.length) {
          const e = seen[cursor++]!;
          if (pred(e)) return e;
        }
        if (done) throw new Error("the stream ended");
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching event within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          const w = () => {
            clearTimeout(t);
            waiters.delete(w);
            resolve();
          };
          waiters.add(w);
        });
      }
    },
  };
}
