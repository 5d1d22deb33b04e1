// The CLI's progress bar: drawn on a terminal's stderr only, cleared at the end.
import { describe, expect, test } from "bun:test";
import { progressBar } from "../../src/cli/progress";

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, s: { isTTY, write: (t: string) => written.push(t) } as unknown as NodeJS.WriteStream };
}

describe("progressBar", () => {
  test("on a terminal: a bar per update on one line, with a note, cleared at the end", () => {
    const { written, s } = stream(true);
    const bar = progressBar("re-embedding", "memories", s);
    bar.update(0, 40);
    bar.update(10, 40, "(provider not ok)");
    bar.end();
    expect(written).toEqual([
      `\r\x1b[Kre-embedding [${"-".repeat(30)}] 0/40 memories`,
      `\r\x1b[Kre-embedding [${"#".repeat(8)}${"-".repeat(22)}] 10/40 memories (provider not ok)`,
      "\r\x1b[K",
    ]);
  });

  test("not a terminal: nothing at all", () => {
    const { written, s } = stream(false);
    const bar = progressBar("re-embedding", "memories", s);
    bar.update(1, 2);
    bar.end();
    expect(written).toEqual([]);
  });
});
