// Throughput of the FTS5-compatible tokenizer (src/core/search/fts5-tokenizer.ts), the keyword index's cost
// at startup: tokens per second on the first pass over a corpus (empty token cache and cold JIT, as
// when the daemon indexes its memories) and on later passes (warm cache).
//
//   bun scripts/bench-tokenize.ts                       both corpora, each in a fresh process
//   bun scripts/bench-tokenize.ts --corpus locomo       one corpus only
//   bun scripts/bench-tokenize.ts --json                machine-readable results on stdout
//
// Flags: --corpus all|generator|locomo (all), --memories N (100_000 generator memories: content and
// tags), --passes N (5: the first, then the median of the others), --json.
// LoCoMo is every turn's text in ../shared/bench/locomo/memories.jsonl (relative to the repository).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFlags } from "./lib/args";
import { makeGenerator } from "./lib/content";
import { int, markdownTable } from "./lib/format";

const LOCOMO = join(import.meta.dir, "../../shared/bench/locomo/memories.jsonl");
const USAGE = "usage: bun scripts/bench-tokenize.ts [--corpus all|generator|locomo] [--memories N] [--passes N] [--json]";

const opts = parseFlags(
  process.argv.slice(2),
  {
    corpus: { kind: "string", choices: ["all", "generator", "locomo"] },
    memories: { kind: "int", min: 1 },
    passes: { kind: "int", min: 2 },
    json: { kind: "bool" },
  },
  { corpus: "all", memories: 100_000, passes: 5, json: false },
  { script: "bench-tokenize", line: USAGE },
);

interface Result {
  corpus: string;
  texts: number;
  tokens: number;
  distinct: number;
  firstPassTokensPerS: number;
  warmTokensPerS: number;
}

function corpus(name: string): string[] {
  if (name === "locomo") {
    if (!existsSync(LOCOMO)) throw new Error(`no LoCoMo data at ${LOCOMO}`);
    return readFileSync(LOCOMO, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { content: string })
      .map((m) => m.content);
  }
  const next = makeGenerator(1);
  const texts: string[] = [];
  for (let i = 0; i < opts.memories; i++) {
    const body = JSON.parse(next()) as { content: string; tags: string[] };
    texts.push(body.content, body.tags.join(" "));
  }
  return texts;
}

async function measure(name: string): Promise<Result> {
  const texts = corpus(name);
  // Imported only now, so its cache is empty and its code cold for the first pass.
  const { tokenize } = await import("../src/core/search/fts5-tokenizer");
  const rates: number[] = [];
  const distinct = new Set<string>();
  let tokens = 0;
  for (let pass = 0; pass < opts.passes; pass++) {
    const start = performance.now();
    let n = 0;
    for (const text of texts) n += tokenize(text).length;
    rates.push(n / ((performance.now() - start) / 1000));
    tokens = n;
  }
  for (const text of texts) for (const t of tokenize(text)) distinct.add(t);
  const warm = rates.slice(1).sort((a, b) => a - b);
  return {
    corpus: name,
    texts: texts.length,
    tokens,
    distinct: distinct.size,
    firstPassTokensPerS: rates[0]!,
    warmTokensPerS: warm[warm.length >> 1]!,
  };
}

if (opts.corpus !== "all") {
  const result = await measure(opts.corpus);
  console.log(opts.json ? JSON.stringify(result) : table([result]));
} else {
  // Each corpus in a fresh process, so neither warms the other's cache or JIT.
  const results = ["generator", "locomo"].map((name) => {
    const child = Bun.spawnSync(
      [process.execPath, import.meta.path, "--corpus", name, "--memories", String(opts.memories), "--passes", String(opts.passes), "--json"],
      { stderr: "inherit" },
    );
    if (child.exitCode !== 0) throw new Error(`${name}: exit ${child.exitCode}`);
    return JSON.parse(child.stdout.toString()) as Result;
  });
  console.log(opts.json ? JSON.stringify(results) : table(results));
}

function table(results: Result[]): string {
  const mtok = (v: number) => `${(v / 1e6).toFixed(1)} M`;
  return markdownTable(
    ["corpus", "texts", "tokens", "distinct tokens", "first pass tokens/s", "warm tokens/s"],
    results.map((r) => [r.corpus, int(r.texts), int(r.tokens), int(r.distinct), mtok(r.firstPassTokensPerS), mtok(r.warmTokensPerS)]),
    ["l", "r", "r", "r", "r", "r"],
  );
}
