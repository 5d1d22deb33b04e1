// Source search fuses its keyword and vector legs as memory recall does (core/search/fusion.ts): the
// vector leg weighs more when the keyword leg's best evidence is weak (a question in other words
// than the text) and less when a chunk holds an identifier of the query.
import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestDaemon, tempDir } from "../helpers/daemon";
import { startFakeEmbedder } from "../helpers/fake-embedder";
import { eventually } from "../helpers/wait";

describe("source search's fusion", () => {
  test("a query in other words than the text leans on the vector leg", async () => {
    // The fake provider's "model" puts kitten and cat in one slot; no chunk holds "kitten" or "nap",
    // so the keyword leg's best evidence is "afternoon" alone (a sixth of the query's weight), which
    // paint.md holds twice. cat.md is the vector leg's best and holds "afternoon" once: with the
    // vector leg at 0.45 it ranks first; a fixed 0.3 would hand the order to paint.md's "afternoon".
    const fake = startFakeEmbedder();
    const d = await startTestDaemon({ yaml: `embedding:\n  provider: openai\n  model: fake-embed\n  baseUrl: ${fake.url}\n` });
    const dir = tempDir("signet-fusion-");
    try {
      DOCS.forEach(([name, text]) => writeFileSync(join(dir, name), text));
      await d.client().sources.add({ path: dir });
      expect(await eventually(async () => (await d.client().sources.list()).sources[0]!.embedded === DOCS.length)).toBe(true);
      const r = await d.client().sources.search({ query: QUERY, minScore: 0 });
      expect(r.meta.method).toBe("hybrid");
      expect(r.results[0]!.path).toBe(join(dir, "cat.md"));
    } finally {
      await d.stop();
      await fake.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const QUERY = "where does the kitten nap in the afternoon";
const DOCS: [string, string][] = [
  ["paint.md", "# Paint\n\nThe afternoon light fades the paint of the shutters every afternoon.\n"],
  ["cat.md", "# Pets\n\nThe cat sleeps on the windowsill in the afternoon, the cat.\n"],
  ["garden.md", "# Garden\n\nTomatoes need water in the afternoon and the beans need sun all day long in the garden beds, rows of them.\n"],
];
