// signet-mcp's record of its own tool calls: queued, then sent to the daemon in batches
// (POST /api/mcp/invocations) at most every `analytics.flushMs`. Reporting never delays or fails a
// call; a daemon that cannot take a batch costs that batch after a few tries, nothing more.
import type { SignetClient } from "../client/client";
import type { InvocationReportRequest } from "../contracts/analytics";
import type { Logger } from "../logger";
import type { OwnToolCall } from "./server";

const MAX_BATCH = 1000;
/** Well under the daemon's default 1 MiB body limit, whatever the error texts hold. */
const MAX_BATCH_BYTES = 256 * 1024;
const MAX_ERROR_TEXT = 2000;
const MAX_QUEUED = 10_000;
const MAX_ATTEMPTS = 3;
/** A report must not hold signet-mcp's exit long when the daemon is slow. */
const REPORT_TIMEOUT_MS = 5000;

/** One report as it goes on the wire, with its encoded size. */
interface Queued {
  row: InvocationReportRequest["invocations"][number];
  bytes: number;
}

export class InvocationReporter {
  private queue: Queued[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private sending?: Promise<boolean>;
  private failures = 0;

  constructor(
    private readonly client: SignetClient,
    private readonly options: { flushMs: number; sessionKey?: string; log: Pick<Logger, "warn"> },
  ) {}

  readonly record = (call: OwnToolCall): void => {
    if (this.queue.length >= MAX_QUEUED) this.queue.shift();
    const { errorText, ...rest } = call;
    const row = {
      server: "signet",
      ...rest,
      ...(errorText ? { errorText: errorText.slice(0, MAX_ERROR_TEXT) } : {}),
      createdAt: new Date().toISOString(),
      sessionKey: this.options.sessionKey,
    };
    this.queue.push({ row, bytes: JSON.stringify(row).length });
    this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  };

  /** Sends everything queued; at exit this is awaited so the last calls are not lost. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    while (this.queue.length > 0) {
      this.sending = this.send(this.nextBatch());
      const sent = await this.sending;
      if (!sent) return;
    }
  }

  /** The oldest reports, at most MAX_BATCH of them and MAX_BATCH_BYTES together (one at least). */
  private nextBatch(): Queued[] {
    let bytes = 0;
    let n = 0;
    while (n < this.queue.length && n < MAX_BATCH && (n === 0 || bytes + this.queue[n]!.bytes <= MAX_BATCH_BYTES)) {
      bytes += this.queue[n]!.bytes;
      n++;
    }
    return this.queue.slice(0, n);
  }

  private async send(batch: Queued[]): Promise<boolean> {
    try {
      await this.client.analytics.report({ invocations: batch.map((q) => q.row) }, { timeoutMs: REPORT_TIMEOUT_MS });
      this.queue.splice(0, batch.length);
      this.failures = 0;
      return true;
    } catch (err) {
      if (++this.failures >= MAX_ATTEMPTS) {
        this.options.log.warn(`dropped ${batch.length} invocation record(s): ${(err as Error).message}`);
        this.queue.splice(0, batch.length);
        this.failures = 0;
      } else {
        this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
      }
      return false;
    }
  }
}
