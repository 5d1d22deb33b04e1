// The first listening to a shared store, tried again in the background until it takes or the
// daemon stops (src/core/listening.ts). Its use on a real PostgreSQL whose new connections are kept
// out is in token-revocation-missed.test.ts.
import { describe, expect, test } from "bun:test";
import { listenRetrying } from "../../src/core/listening";

/** A `listen` that fails `failures` times, then returns the number of its try. */
function flaky(failures: number) {
  let tries = 0;
  const listen = async () => {
    tries++;
    if (tries <= failures) throw new Error(`refused (try ${tries})`);
    return tries;
  };
  return { listen, tries: () => tries };
}

describe("listenRetrying (listening.ts)", () => {
  test("a first try that takes is told, once, and nothing is reported", async () => {
    const { listen, tries } = flaky(0);
    const told: number[] = [];
    const errors: string[] = [];
    await listenRetrying(listen, { signal: new AbortController().signal, keep: (n) => void told.push(n), end: async () => {}, onError: (m) => errors.push(m), what: "x" });
    expect(told).toEqual([1]);
    expect(errors).toEqual([]);
    expect(tries()).toBe(1);
  });

  test("failed tries are reported and tried again after growing waits until one takes; the start resolves after the first", async () => {
    const { listen, tries } = flaky(3);
    const told: number[] = [];
    const errors: string[] = [];
    const took = new Promise<void>((resolve) =>
      listenRetrying(listen, {
        signal: new AbortController().signal,
        keep: (n) => {
          told.push(n);
          resolve();
        },
        end: async () => {},
        onError: (m) => errors.push(m),
        what: "messages kept by other daemons",
        retryMs: [10, 20, 30],
      }).then(() => {
        // Resolved after the first try, before any other.
        expect(tries()).toBe(1);
        expect(told).toEqual([]);
      }),
    );
    await took;
    expect(told).toEqual([4]);
    expect(errors).toEqual([
      "messages kept by other daemons: listening on the shared store failed (refused (try 1)); trying again in 0.01 s",
      "messages kept by other daemons: listening on the shared store failed (refused (try 2)); trying again in 0.02 s",
      "messages kept by other daemons: listening on the shared store failed (refused (try 3)); trying again in 0.03 s",
    ]);
  });

  test("once the signal aborts, no try starts", async () => {
    const { listen, tries } = flaky(Infinity);
    const stop = new AbortController();
    const errors: string[] = [];
    await listenRetrying(listen, { signal: stop.signal, keep: () => {}, end: async () => {}, onError: (m) => errors.push(m), what: "x", retryMs: [60_000] });
    stop.abort();
    await Bun.sleep(50);
    expect(tries()).toBe(1);
    expect(errors).toHaveLength(1);
  });

  test("what a try that ends after the abort set up is handed to `end`, never kept; its failure is not reported", async () => {
    const stop = new AbortController();
    let release!: (ok: boolean) => void;
    const gate = new Promise<boolean>((resolve) => (release = resolve));
    const told: string[] = [];
    const kept: string[] = [];
    const errors: string[] = [];
    const started = listenRetrying(
      async () => {
        if (!(await gate)) throw new Error("refused");
        return "subscription";
      },
      { signal: stop.signal, keep: (s) => void kept.push(s), end: async (s) => void told.push(s), onError: (m) => errors.push(m), what: "x" },
    );
    stop.abort();
    release(true);
    await started;
    expect(told).toEqual(["subscription"]);
    expect(kept).toEqual([]);

    const stopped = new AbortController();
    let fail!: () => void;
    const failing = listenRetrying(
      () => new Promise<never>((_, reject) => (fail = () => reject(new Error("refused")))),
      { signal: stopped.signal, keep: () => {}, end: async () => {}, onError: (m) => errors.push(m), what: "x" },
    );
    stopped.abort();
    fail();
    await failing;
    expect(errors).toEqual([]);
  });
});
