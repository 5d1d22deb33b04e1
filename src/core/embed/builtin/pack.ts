// Packing: the weights into the shared memory at the offsets of the layout, dense kernels as int16
// pairs in 16-column panels for the integer GEMM kernel, plus the precomputed timing signal.
import { packPairs } from "./kernel";
import type { Dense, Layout, Norm } from "./layout";
import { MAX_TOKENS } from "./limits";
import type { StoredTensor } from "./q8";

const ENC = "module_apply_default/Encoder_en/KonaTransformer/Encode";
const KERNEL = "module/Encoder_en/KonaTransformer/Encode";

export function fillMemory(memory: WebAssembly.Memory, layout: Layout, weights: Map<string, StoredTensor>): void {
  const f32 = new Float32Array(memory.buffer);
  const stored = (name: string, size: number): StoredTensor => {
    const t = weights.get(name);
    if (!t || t.shape.reduce((a, b) => a * b, 1) !== size) throw new Error(`builtin model: weight ${name} missing or of the wrong size`);
    return t;
  };
  const wrong = (name: string, t: StoredTensor, encoding: string) => new Error(`builtin model: weight ${name} is stored as ${t.encoding}, not ${encoding}`);
  const get = (name: string, size: number): Float32Array => {
    const t = stored(name, size);
    if (t.encoding !== "f32") throw wrong(name, t, "f32");
    return t.values;
  };
  const int8 = (name: string, size: number, encoding: "q8col" | "q8row"): { q: Int8Array; scales: Float32Array } => {
    const t = stored(name, size);
    if (t.encoding === "f32" || t.encoding !== encoding) throw wrong(name, t, encoding);
    return t;
  };
  const put = (at: number, values: Float32Array) => f32.set(values, at >> 2);
  const dense = (d: Dense, kernel: string, bias: string) => {
    const w = int8(kernel, d.k * d.n, "q8col");
    packPairs(w.q, d.k, d.n, new Int16Array(memory.buffer, d.w, ((d.k + 1) >> 1) * 2 * d.n));
    put(d.scales, w.scales);
    put(d.b, get(bias, d.n));
  };
  const norm = (n: Norm, prefix: string) => {
    put(n.scale, get(`${prefix}/layer_norm/layer_norm_scale/ConcatPartitions/concat`, n.dim));
    put(n.bias, get(`${prefix}/layer_norm/layer_norm_bias/ConcatPartitions/concat`, n.dim));
  };
  const layer = (i: number, l: Layout["l0"] | Layout["l1"]) => {
    const own = `${ENC}/Layer_${i}/TransformerLayer`;
    const stack = `${ENC}/TransformerStack/Layer_${i}/TransformerLayer`;
    const mha = `${KERNEL}/Layer_${i}/TransformerLayer/MultiheadAttention`;
    norm(l.attnNorm, `${own}/layer_prepostprocess`);
    dense(l.qkv, `${mha}/qkv_transform_single/kernel/part_0`, `${own}/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`);
    dense(l.out, `${mha}/output_transform_single/kernel/part_0`, `${own}/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`);
    norm(l.ffnNorm, `${own}/FFN/layer_prepostprocess`);
    dense(l.ffn1, `${stack}/FFN/conv1/Tensordot/Reshape_1`, `${own}/FFN/conv1/bias/ConcatPartitions/concat`);
    dense(l.ffn2, `${stack}/FFN/conv2/Tensordot/Reshape_1`, `${own}/FFN/conv2/bias/ConcatPartitions/concat`);
  };
  layer(0, layout.l0);
  dense(layout.l0.residual, `${ENC}/Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`, `${ENC}/Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`);
  layer(1, layout.l1);
  dense(layout.tanh, "module/Encoder_en/hidden_layers/tanh_layer_0/weights", "module/Encoder_en/hidden_layers/tanh_layer_0/bias");
  const emb = int8("module/Embeddings_en", layout.vocabRows * 256, "q8row");
  new Int8Array(memory.buffer, layout.emb, emb.q.length).set(emb.q);
  put(layout.embScales, emb.scales);
  // timing signal: [sin(pos * inv) | cos(pos * inv)], the product rounded to float32 as in the graph
  const inv = get(`${ENC}/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, 128);
  const timing = layout.timing >> 2;
  for (let pos = 0; pos < MAX_TOKENS; pos++) {
    for (let j = 0; j < 128; j++) {
      const angle = Math.fround(pos * inv[j]!);
      f32[timing + pos * 256 + j] = Math.sin(angle);
      f32[timing + pos * 256 + 128 + j] = Math.cos(angle);
    }
  }
}
