// signet-mcp's stdin, read with Bun's own stream from the start: the lines that come before the MCP
// SDK has loaded are looked at as they come (src/mcp/stdio.ts answers initialize and tools/list at
// once), and every chunk, those lines included, then goes to the SDK's stdio transport in order.
// The transport takes it as its stdin: it listens for `data` and, when it closes, stops listening
// and pauses.
import type { Readable } from "node:stream";

type Listener = (chunk: Buffer) => void;

export class StdinFeed {
  private readonly pending: Buffer[] = [];
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

  constructor(stream: ReadableStream<Uint8Array> = Bun.stdin.stream()) {
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
        if (this.flowing) this.listener?.(chunk);
        else this.pending.push(chunk);
      }
    } catch {
      // A stdin that fails ends here, as at EOF.
    }
    this.eof = true;
    this.onEof?.();
    if (this.flowing) this.onEnded();
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
