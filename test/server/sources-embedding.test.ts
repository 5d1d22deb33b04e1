// Memories and document chunks are embedded by one loop, the embedding worker's (core/embed/worker.ts,
// core/sources/vectors.ts): one batch at a time against the provider, whichever the texts are.
import { expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestDaemon, tempDir } from "../helpers/daemon";
import { startFakeEmbedder } from "../helpers/fake-embedder";
import { eventually } from "../helpers/wait";

const CHUNKS = 64;
const MEMORIES = 48;

test("chunks and memories waiting at once reach the provider one batch at a time, and all get vectors", async () => {
  const fake = startFakeEmbedder();
  const d = await startTestDaemon({ yaml: `embedding:\n  provider: openai\n  model: fake-embed\n  baseUrl: ${fake.url}\n` });
  const dir = tempDir("signet-one-loop-");
  try {
    // A slow provider: each batch takes a while, so two loops would have batches open together.
    fake.delayMs = 100;
    for (let i = 0; i < CHUNKS; i++) writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n\nThe heron number ${i} waits by the reeds at dawn.\n`);
    expect((await d.client().sources.add({ path: dir })).chunks).toBe(CHUNKS);
    // While the chunks are being embedded, memories arrive.
    await Promise.all(Array.from({ length: MEMORIES }, (_, i) => d.client().memory.remember({ content: `The otter number ${i} swims upstream at noon` })));
    const done = async () => (await d.client().sources.list()).sources[0]!.embedded === CHUNKS && (await d.client().embed.status()).pending === 0;
    expect(await eventually(done, 30_000)).toBe(true);
    expect(fake.embedded.filter((t) => t.includes("otter")).length).toBeGreaterThanOrEqual(MEMORIES);
    expect(fake.maxInFlight).toBe(1);
  } finally {
    await d.stop();
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
