// PDF text extraction off the daemon's thread (docs/api.md#sources). pdf.js inflates a PDF's
// compressed streams in memory and parses them synchronously: a small file can inflate to gigabytes
// and keep a thread busy for minutes. So a worker thread (pdf-worker.ts) extracts, one PDF at a
// time, while this side watches it: past the time limit, or once the process's memory has grown
// by more than the memory limit since the PDF started, the worker is terminated (which stops it
// mid-loop and frees what it held) and the PDF is refused with the reason. The memory is the
// process's resident size, the one figure shared threads have: it also bounds what the streams
// inflate to. One worker serves an add or sync and is terminated at its end.

export interface PdfLimits {
  /** Growth of the process's resident memory allowed while one PDF is extracted. */
  memoryBytes: number;
  timeMs: number;
  /** Characters of extracted text. */
  textChars: number;
}

/** What the worker is sent, and what it answers. */
export interface PdfJob {
  bytes: Uint8Array;
  maxChars: number;
}
export type PdfOutcome = { pages: string[] } | { problem: string };

/** How often memory is looked at while a PDF is extracted. */
const WATCH_MS = 20;

export class PdfExtractor {
  private worker: Worker | null = null;
  /** Ends the extraction under way with a refusal (the worker is already terminated). */
  private abort: ((problem: string) => void) | null = null;

  constructor(private readonly limits: PdfLimits) {}

  /** The text of each page, or the reason the PDF is refused. */
  extract(bytes: Uint8Array): Promise<PdfOutcome> {
    let worker: Worker;
    try {
      worker = this.worker ??= this.startWorker();
    } catch (err) {
      return Promise.resolve({ problem: `the PDF reader did not start (${(err as Error).message})` });
    }
    const { memoryBytes, timeMs, textChars } = this.limits;
    return new Promise<PdfOutcome>((resolve) => {
      const baseline = process.memoryUsage.rss();
      const finish = (outcome: PdfOutcome) => {
        clearInterval(watch);
        clearTimeout(timer);
        worker.onmessage = null;
        this.abort = null;
        resolve(outcome);
      };
      const refuse = (problem: string) => {
        this.terminate();
        finish({ problem });
      };
      const watch = setInterval(() => {
        if (process.memoryUsage.rss() - baseline > memoryBytes) {
          refuse(`extracting its text took more than ${memoryBytes / 1024 / 1024} MiB of memory (streams that inflate far beyond the file?)`);
        }
      }, WATCH_MS);
      const timer = setTimeout(() => refuse(`extracting its text took longer than ${timeMs / 1000} s`), timeMs);
      this.abort = refuse;
      worker.onmessage = (event: MessageEvent<PdfOutcome>) => finish(event.data);
      worker.postMessage({ bytes, maxChars: textChars } satisfies PdfJob);
    });
  }

  /** Terminates the worker; an extraction under way (only when the daemon stops) ends refused. */
  close(): void {
    if (this.abort) this.abort("not extracted: the daemon is stopping");
    else this.terminate();
  }

  private startWorker(): Worker {
    const worker = new Worker(new URL("./pdf-worker.ts", import.meta.url));
    // An error the worker did not catch (pdf.js failing outside a PDF's promise): whatever it was
    // doing is lost, so it goes.
    worker.onerror = (event) => {
      event.preventDefault();
      // Bun's message quotes the source around the throw; the error's own line is what says why.
      if (this.abort) this.abort(`the PDF reader failed (${/^error: (.*)$/m.exec(event.message)?.[1] ?? event.message})`);
      else if (this.worker === worker) this.terminate();
    };
    return worker;
  }

  /** The next extract starts a new worker. */
  private terminate(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}
