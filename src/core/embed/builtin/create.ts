// Start-up: lays out the shared memory, loads and packs the weights, compiles the kernels and starts
// the compute workers from a Blob of workerMain's source.
import type { Embedder } from "../types";
import { BuiltinEmbedder, type BunWorker } from "./embedder";
import { kernelModuleBytes } from "./kernel";
import { makeLayout } from "./layout";
import { fillMemory } from "./pack";
import { Tokenizer } from "./sentencepiece";
import { readWeights } from "./weights";
import { workerMain } from "./worker-main";

export interface BuiltinOptions {
  /** Compute threads (workers); default: the number of cores, at most 4. */
  threads?: number;
}

/** Loads USE-lite from the embedded assets and starts its compute workers. */
export async function createBuiltinEmbedder(options: BuiltinOptions = {}): Promise<Embedder & { tokenize(text: string): number[]; callerBusy(busy: boolean): void }> {
  const cores = typeof navigator !== "undefined" && navigator.hardwareConcurrency ? navigator.hardwareConcurrency : 2;
  const threads = Math.max(1, Math.min(options.threads ?? cores, 4));
  const layout = makeLayout(threads);
  const memory = new WebAssembly.Memory({ initial: layout.pages, maximum: layout.pages, shared: true });
  const [{ weights, vocabulary }, module] = await Promise.all([readWeights(), WebAssembly.compile(kernelModuleBytes(layout.pages))]);
  fillMemory(memory, layout, weights);
  weights.clear();
  Bun.gc(true); // drop the ~28 MB of shard bytes now that the weights are packed
  const tokenizer = new Tokenizer(vocabulary);

  const source = `(${workerMain.toString()})();`;
  const url = URL.createObjectURL(new Blob([source], { type: "application/javascript" }));
  const workers: BunWorker[] = [];
  try {
    const ready: Promise<void>[] = [];
    for (let t = 0; t < threads; t++) {
      const worker = new Worker(url) as BunWorker;
      workers.push(worker);
      ready.push(
        new Promise<void>((resolve, reject) => {
          worker.onmessage = (event: MessageEvent) => (event.data?.type === "ready" ? resolve() : undefined);
          worker.onerror = (event: ErrorEvent) => reject(new Error(`builtin embedder worker failed to start: ${event.message}`));
        }),
      );
      worker.postMessage({ type: "init", layout, thread: t, threads, memory, module });
    }
    await Promise.all(ready);
  } catch (err) {
    for (const w of workers) w.terminate();
    throw err;
  } finally {
    URL.revokeObjectURL(url);
  }
  return new BuiltinEmbedder(tokenizer, workers, memory, layout);
}
