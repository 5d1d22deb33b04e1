// signet-mcp's stdin, read with Bun's own stream from the start: the lines that come before the MCP
// SDK has loaded are looked at as they come (src/mcp/stdio.ts answers initialize and tools/list at
// once), and every chunk, those lines included, then goes to the SDK's stdio transport in order.
// The transport takes it as its stdin: it listens for `data` and, when it closes, stops listening
// and pauses.
import type { Readable } from "node:stream";

type Listener = (chunk: Buffer) => void;

export class StdinFeed {
  private readonly pending: Buffer[] = [];
  /** The line being read, in pieces: the transport is handed whole lines, each joined once. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** The line being read is past maxLineBytes: the rest of it is dropped, then `onOversize` told. */
  private skipping = false;
  /** The start of the line being skipped, where its id is looked for. */
  private skippedHead = "";
  private listener: Listener | undefined;
  /** Chunks go straight to the listener once those read before it came have been delivered. */
  private flowing = false;
  private eof = false;
  /** What came of the line being read, before its newline. */
  private head = "";
  private onLine: ((line: string) => void) | undefined;
  private onEof: (() => void) | undefined;
  private onEnded!: () => void;
  /** Resolves once stdin has ended and every chunk went to the transport. */
  readonly ended = new Promise<void>((resolve) => (this.onEnded = resolve));

  /**
   * `onOversize` is told of each line longer than `maxLineBytes`, which is dropped (with its JSON-RPC
   * id when its first bytes show one), so that neither this nor the transport holds more than a line
   * and the session goes on.
   */
  constructor(
    private readonly maxLineBytes = Number.POSITIVE_INFINITY,
    private readonly onOversize: (id: string | number | null) => void = () => {},
    stream: ReadableStream<Uint8Array> = Bun.stdin.stream(),
  ) {
    void this.pump(stream.getReader());
  }

  /**
   * Hands `onLine` each line (without its newline) that comes from now until `stopWatching`, as it
   * comes, and calls `onEof` if stdin ends meanwhile. The chunks still go to the transport, all of
   * them, when it listens.
   */
  watch(onLine: (line: string) => void, onEof: () => void): void {
    this.onLine = onLine;
    this.onEof = onEof;
    if (this.eof) onEof();
  }

  /** Nothing is handed to the watcher after this. */
  stopWatching(): void {
    this.onLine = undefined;
    this.onEof = undefined;
    this.head = "";
  }

  private take(text: string): void {
    this.head += text;
    for (let end = this.head.indexOf("\n"); end !== -1 && this.onLine; end = this.head.indexOf("\n")) {
      const line = this.head.slice(0, end);
      this.head = this.head.slice(end + 1);
      this.onLine(line);
    }
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const chunk = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
        if (this.onLine) this.take(decoder.decode(chunk, { stream: true }));
        this.split(chunk);
      }
    } catch {
      // A stdin that fails ends here, as at EOF.
    }
    // A last line without its newline goes as it is (the transport waits for a newline that never comes).
    if (!this.skipping && this.partialBytes > 0) this.deliver(Buffer.concat(this.partial));
    this.eof = true;
    this.onEof?.();
    if (this.flowing) this.onEnded();
  }

  /** Cuts `chunk` at its newlines: each whole line goes on, joined once; the rest waits for its end. */
  private split(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl + 1);
      from = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        this.onOversize(idOf(this.skippedHead));
        continue;
      }
      if (this.partialBytes + piece.length - 1 > this.maxLineBytes) {
        this.onOversize(idOf(Buffer.concat([...this.partial, piece]).subarray(0, ID_SEARCH_BYTES).toString()));
      } else {
        this.deliver(this.partialBytes === 0 ? piece : Buffer.concat([...this.partial, piece]));
      }
      this.partial = [];
      this.partialBytes = 0;
    }
    const rest = chunk.subarray(from);
    if (rest.length === 0 || this.skipping) return;
    this.partial.push(rest);
    this.partialBytes += rest.length;
    if (this.partialBytes > this.maxLineBytes) {
      this.skipping = true;
      this.skippedHead = Buffer.concat(this.partial).subarray(0, ID_SEARCH_BYTES).toString();
      this.partial = [];
      this.partialBytes = 0;
    }
  }

  private deliver(line: Buffer): void {
    if (this.flowing) this.listener?.(line);
    else this.pending.push(line);
  }

  /** What the transport is given in place of process.stdin. */
  asStdin(): Readable {
    const stdin = {
      on: (event: string, listener: Listener) => {
        if (event === "data") {
          this.listener = listener;
          // On a later turn, as a stream's data comes: whoever connected the transport has by then
          // set up what it does with the messages.
          setImmediate(() => {
            for (const chunk of this.pending.splice(0)) this.listener?.(chunk);
            this.flowing = true;
            if (this.eof) this.onEnded();
          });
        }
        return stdin;
      },
      off: (event: string, listener: Listener) => {
        if (event === "data" && this.listener === listener) this.listener = undefined;
        return stdin;
      },
      listenerCount: (event: string) => (event === "data" && this.listener ? 1 : 0),
      // Nothing more is delivered once the transport has stopped listening.
      pause: () => stdin,
    };
    return stdin as unknown as Readable;
  }
}

/** How much of a dropped line's start is searched for its id. */
const ID_SEARCH_BYTES = 256;

/** The JSON-RPC id a message's first bytes show, if any (`"id": 7` or `"id": "a"`). */
function idOf(head: string): string | number | null {
  const m = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}
