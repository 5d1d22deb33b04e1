// Newline-delimited framing of a server's stdout in linear time. The SDK's ReadBuffer joins every
// chunk onto everything buffered so far and searches the whole buffer from its start each time:
// quadratic in a message's size (a 60 MB tool result in 64 KiB chunks took 34 s and held the
// daemon's event loop). Here a chunk is searched once and waits in a list until its line ends;
// each line is copied once, when it is joined.

export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `maxLineBytes` bounds what is held: a longer line throws a RangeError as soon as it passes it. */
  constructor(private readonly maxLineBytes: number) {}

  /** The lines `chunk` completes, without their "\n" (a "\r" before it stays: JSON ignores it). */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, end);
      this.check(tail.length);
      lines.push(this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail], this.pendingBytes + tail.length));
      this.pending = [];
      this.pendingBytes = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.check(rest.length);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    return lines;
  }

  private check(more: number): void {
    if (this.pendingBytes + more > this.maxLineBytes) throw new RangeError(`a line longer than ${this.maxLineBytes} bytes`);
  }
}
