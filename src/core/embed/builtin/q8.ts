// The format of the builtin model's packed weights (use-lite-512.q8, written by
// scripts/gen-builtin-weights.ts): large matrices as int8 with a float32 scale per output column (or
// per row, for a table looked up by row), small tensors as float32. Symmetric rounding to the nearest
// of 255 levels keeps each weight within half a step of its scale; the model's output agrees with
// the float32 one to a cosine above 0.999 (test/unit/embed-builtin.test.ts).
//
// Layout: "SQ8" and a version byte, the header's length (uint32 LE), the header (JSON: each tensor's
// name, shape, encoding and byte offset past the header), then each tensor's bytes, 4-byte aligned:
// f32 values; or int8 values followed by the float32 scales.

type Q8Encoding = "f32" | "q8col" | "q8row";

export interface Q8Tensor {
  name: string;
  shape: number[];
  encoding: Q8Encoding;
  values: Float32Array;
  /** The last dimension: a row's length. */
  cols: number;
}

interface HeaderEntry {
  name: string;
  shape: number[];
  encoding: Q8Encoding;
  offset: number;
}

const MAGIC = [0x53, 0x51, 0x38, 1];
const align4 = (n: number) => (n + 3) & ~3;
const countOf = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
/** How many scales a tensor has: one per column, or one per row. */
const scalesOf = (encoding: Q8Encoding, count: number, cols: number) => (encoding === "q8col" ? cols : encoding === "q8row" ? count / cols : 0);
const sizeOf = (encoding: Q8Encoding, count: number, cols: number) =>
  encoding === "f32" ? count * 4 : align4(count) + scalesOf(encoding, count, cols) * 4;

export function encodeQ8(tensors: Q8Tensor[]): Uint8Array {
  const header: HeaderEntry[] = [];
  let offset = 0;
  for (const t of tensors) {
    header.push({ name: t.name, shape: t.shape, encoding: t.encoding, offset });
    offset += sizeOf(t.encoding, t.values.length, t.cols);
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = align4(8 + json.byteLength);
  const out = new Uint8Array(start + offset);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(4, json.byteLength, true);
  out.set(json, 8);
  tensors.forEach((t, i) => {
    const at = start + header[i]!.offset;
    if (t.encoding === "f32") {
      out.set(new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength), at);
      return;
    }
    const count = t.values.length;
    const scales = new Float32Array(scalesOf(t.encoding, count, t.cols));
    const group = t.encoding === "q8col" ? (i: number) => i % t.cols : (i: number) => Math.floor(i / t.cols);
    for (let j = 0; j < count; j++) scales[group(j)] = Math.max(scales[group(j)]!, Math.abs(t.values[j]!));
    for (let s = 0; s < scales.length; s++) scales[s] = scales[s]! > 0 ? scales[s]! / 127 : 1;
    const q = new Int8Array(out.buffer, at, count);
    for (let j = 0; j < count; j++) q[j] = Math.max(-127, Math.min(127, Math.round(t.values[j]! / scales[group(j)]!)));
    out.set(new Uint8Array(scales.buffer), at + align4(count));
  });
  return out;
}

/** A tensor as the packed file stores it: float32 values, or int8 values with one scale per column (or row). */
export type StoredTensor =
  | { shape: number[]; encoding: "f32"; values: Float32Array }
  | { shape: number[]; encoding: "q8col" | "q8row"; q: Int8Array; scales: Float32Array };

/**
 * Every tensor of a packed file, by name, as stored: the int8 matrices stay int8 (the embedder
 * multiplies in integers, kernel.ts), and value q of scale s stands for the float32 q * s.
 */
export function decodeQ8(bytes: Uint8Array): Map<string, StoredTensor> {
  if (MAGIC.some((b, i) => bytes[i] !== b)) throw new Error("builtin model: the packed weights are not in the expected format");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as HeaderEntry[];
  const start = align4(8 + length);
  const tensors = new Map<string, StoredTensor>();
  for (const e of header) {
    const count = countOf(e.shape);
    const cols = e.shape.at(-1) ?? 1;
    const at = bytes.byteOffset + start + e.offset;
    if (at + sizeOf(e.encoding, count, cols) > bytes.byteOffset + bytes.byteLength) throw new Error(`builtin model: packed weights cut short at ${e.name}`);
    if (e.encoding === "f32") {
      tensors.set(e.name, { shape: e.shape, encoding: e.encoding, values: new Float32Array(bytes.buffer.slice(at, at + count * 4)) });
      continue;
    }
    const q = new Int8Array(bytes.buffer, at, count);
    const scales = new Float32Array(bytes.buffer.slice(at + align4(count), at + align4(count) + scalesOf(e.encoding, count, cols) * 4));
    tensors.set(e.name, { shape: e.shape, encoding: e.encoding, q, scales });
  }
  return tensors;
}
