// Background work's wait for the writes to pause (src/core/foreground.ts): it ends once writes stop,
// not while they come, and under writes that never stop it still ends after its longest wait.
import { describe, expect, test } from "bun:test";
import { Foreground, type ForegroundOptions } from "../../src/core/foreground";

/** A Foreground that has just taken a write, and a wait for its pause begun: whether it has ended. */
function waiting(options: ForegroundOptions): { foreground: Foreground; ended: () => boolean } {
  const foreground = new Foreground(options);
  foreground.touch();
  let ended = false;
  void foreground.pause().then(() => (ended = true));
  return { foreground, ended: () => ended };
}

describe("Foreground.pause", () => {
  test("with no write yet, it ends at once", async () => {
    let done = false;
    void new Foreground({ quietMs: 60_000 }).pause().then(() => (done = true));
    await Bun.sleep(20);
    expect(done).toBe(true);
  });

  test("it ends only after the writes stop", async () => {
    const { foreground, ended } = waiting({ quietMs: 300, maxWaitMs: 60_000 });
    for (let i = 0; i < 40; i++) {
      await Bun.sleep(10);
      expect(ended()).toBe(false);
      foreground.touch();
    }
    await Bun.sleep(1000);
    expect(ended()).toBe(true);
  });

  test("under writes that never stop, it ends after its longest wait", async () => {
    const { foreground, ended } = waiting({ quietMs: 60_000, maxWaitMs: 200 });
    for (let i = 0; i < 200 && !ended(); i++) {
      foreground.touch();
      await Bun.sleep(10);
    }
    expect(ended()).toBe(true);
  });
});
