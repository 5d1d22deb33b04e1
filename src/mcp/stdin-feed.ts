// signet-mcp's stdin, read with Bun's own stream from the start: its first line is looked at before
// the MCP SDK has loaded (src/mcp/stdio.ts answers an initialize request at once), and every chunk,
// that first line included, then goes to the SDK's stdio transport in order. The transport takes it
// as its stdin: it listens for `data` and, when it closes, stops listening and pauses.
import type { Readable } from "node:stream";

type Listener = (chunk: Buffer) => void;

export class StdinFeed {
  private readonly pending: Buffer[] = [];
  private listener: Listener | undefined;
  /** Chunks go straight to the listener once those read before it came have been delivered. */
  private flowing = false;
  private eof = false;
  private head = "";
  private onFirstLine: ((line: string | undefined) => void) | undefined;
  private readonly firstLineRead: Promise<string | undefined>;
  private onEnded!: () => void;
  /** Resolves once stdin has ended and every chunk went to the transport. */
  readonly ended = new Promise<void>((resolve) => (this.onEnded = resolve));

  constructor(stream: ReadableStream<Uint8Array> = Bun.stdin.stream()) {
    this.firstLineRead = new Promise((resolve) => (this.onFirstLine = resolve));
    void this.pump(stream.getReader());
  }

  /** The first line (without its newline), or undefined when stdin ends before one is complete. */
  firstLine(): Promise<string | undefined> {
    return this.firstLineRead;
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const chunk = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
        if (this.onFirstLine) {
          this.head += decoder.decode(chunk, { stream: true });
          const end = this.head.indexOf("\n");
          if (end !== -1) this.settleFirstLine(this.head.slice(0, end));
        }
        if (this.flowing) this.listener?.(chunk);
        else this.pending.push(chunk);
      }
    } catch {
      // A stdin that fails ends here, as at EOF.
    }
    this.eof = true;
    this.settleFirstLine(undefined);
    if (this.flowing) this.onEnded();
  }

  private settleFirstLine(line: string | undefined): void {
    this.onFirstLine?.(line);
    this.onFirstLine = undefined;
    this.head = "";
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
