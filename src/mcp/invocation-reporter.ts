// signet-mcp's record of its own tool calls: queued, then sent to the daemon in batches
// (POST /api/mcp/invocations) at most every `analytics.flushMs`. Reporting never delays or fails a
// call; a daemon that cannot take a batch costs that batch after a few tries, nothing more.
import type { SignetClient } from "../client/client";
import type { OwnToolCall } from "./server";

const MAX_BATCH = 1000;
const MAX_QUEUED = 10_000;
const MAX_ATTEMPTS = 3;

interface Queued {
  tool: string;
  latencyMs: number;
  success: boolean;
  errorText?: string;
  createdAt: string;
  sessionKey?: string;
}

export class InvocationReporter {
  private queue: Queued[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private sending?: Promise<boolean>;
  private failures = 0;

  constructor(
    private readonly client: SignetClient,
    private readonly options: { flushMs: number; sessionKey?: string },
  ) {}

  readonly record = (call: OwnToolCall): void => {
    if (this.queue.length >= MAX_QUEUED) this.queue.shift();
    this.queue.push({ ...call, createdAt: new Date().toISOString(), sessionKey: this.options.sessionKey });
    this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  };

  /** Sends everything queued; at exit this is awaited so the last calls are not lost. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sending;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, MAX_BATCH);
      this.sending = this.send(batch);
      const sent = await this.sending;
      if (!sent) return;
    }
  }

  private async send(batch: Queued[]): Promise<boolean> {
    try {
      await this.client.request("POST", "/api/mcp/invocations", {
        body: { invocations: batch.map(({ errorText, ...rest }) => ({ server: "signet", ...rest, ...(errorText ? { errorText: errorText.slice(0, 2000) } : {}) })) },
        timeoutMs: 5000,
      });
      this.queue.splice(0, batch.length);
      this.failures = 0;
      return true;
    } catch (err) {
      if (++this.failures >= MAX_ATTEMPTS) {
        process.stderr.write(`signet-mcp: dropped ${batch.length} invocation record(s): ${(err as Error).message}\n`);
        this.queue.splice(0, batch.length);
        this.failures = 0;
      } else {
        this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
      }
      return false;
    }
  }
}
