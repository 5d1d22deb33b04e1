// Background work's wait for the writes to pause (src/core/foreground.ts): it ends once writes stop,
// not while they come, and under writes that never stop it still ends after its longest wait.
import { describe, expect, test } from "bun:test";
import { Foreground } from "../../src/core/foreground";

describe("Foreground.pause", () => {
  test("with no write yet, it ends at once", async () => {
    let done = false;
    void new Foreground({ quietMs: 60_000 }).pause().then(() => (done = true));
    await Bun.sleep(20);
    expect(done).toBe(true);
  });

  test("it ends only after the writes stop", async () => {
    const foreground = new Foreground({ quietMs: 300, maxWaitMs: 60_000 });
    foreground.touch();
    let done = false;
    void foreground.pause().then(() => (done = true));
    for (let i = 0; i < 40; i++) {
      await Bun.sleep(10);
      expect(done).toBe(false);
      foreground.touch();
    }
    await Bun.sleep(1000);
    expect(done).toBe(true);
  });

  test("under writes that never stop, it ends after its longest wait", async () => {
    const foreground = new Foreground({ quietMs: 60_000, maxWaitMs: 200 });
    foreground.touch();
    let done = false;
    void foreground.pause().then(() => (done = true));
    for (let i = 0; i < 200 && !done; i++) {
      foreground.touch();
      await Bun.sleep(10);
    }
    expect(done).toBe(true);
  });
});
