// Memory layout: packed weights, activations, per-thread scratch and a control block, all in one
// shared WebAssembly.Memory. Offsets are in bytes, 64-byte aligned.
import { MAX_ROWS, MAX_SENTENCES, MAX_TOKENS } from "./limits";

export interface Dense {
  w: number; // int16 [N/16][K/2][16][2] (packPairs in kernel.ts)
  scales: number; // float32 [N]: each column's scale
  b: number; // bias [N]
  k: number;
  n: number;
}

export interface Norm {
  scale: number;
  bias: number;
  dim: number;
}

export interface Layout {
  pages: number;
  threads: number;
  maxRows: number;
  maxSentences: number;
  // weights
  emb: number; // int8 [8002, 256]
  embScales: number; // float32 [8002]: each row's scale
  timing: number; // [MAX_TOKENS, 256] sin | cos, precomputed
  vocabRows: number;
  l0: { attnNorm: Norm; qkv: Dense; residual: Dense; out: Dense; ffnNorm: Norm; ffn1: Dense; ffn2: Dense };
  l1: { attnNorm: Norm; qkv: Dense; out: Dense; ffnNorm: Norm; ffn1: Dense; ffn2: Dense };
  tanh: Dense;
  // activations
  x0: number; // [rows, 256]
  norm: number; // [rows, 512]
  qkv: number; // [rows, 1536]
  ctx: number; // [rows, 512]
  h: number; // [rows, 512]
  ffn: number; // [rows, 1536]
  ffnMean: number; // [sentences, 1536]: each sentence's mean of layer 1's FFN hidden rows
  pooled: number; // [sentences, 512]
  out: number; // [sentences, 512]
  aq: number; // int16 [max(rows, sentences), 1536]: a product's left side, quantized (kernel.ts quantize)
  aScales: number; // float32 [max(rows, sentences)]: its rows' scales
  offsets: number; // int32 [sentences]
  lengths: number; // int32 [sentences]
  scratch: number; // per thread: Kt [128 x 128] then S [128 x 128]
  scratchBytes: number;
  ctrl: number; // int32 control block
}

export const CTRL_INTS = 64;
/** The control block's "exit" op (OP_EXIT in workerMain). */
export const CTRL_OP_EXIT = 3;
/** The control block's int that is 1 while the thread that asks for vectors is busy (CALLER_BUSY in workerMain). */
export const CTRL_CALLER_BUSY = 32;
/** The control block's int that is 1 while a query waits: the leader hands back background chunks it has not started (DEFER_BACKGROUND in workerMain). */
export const CTRL_DEFER_BACKGROUND = 35;

export function makeLayout(threads: number): Layout {
  let at = 0;
  const takeBytes = (bytes: number) => {
    const start = at;
    at += Math.ceil(bytes / 64) * 64;
    return start;
  };
  const take = (floats: number) => takeBytes(floats * 4);
  const dense = (k: number, n: number): Dense => ({ w: takeBytes(((k + 1) >> 1) * 4 * n), scales: take(n), b: take(n), k, n });
  const norm = (dim: number): Norm => ({ scale: take(dim), bias: take(dim), dim });
  const vocabRows = 8002;
  const aRows = Math.max(MAX_ROWS, MAX_SENTENCES);
  const layout = {
    threads,
    maxRows: MAX_ROWS,
    maxSentences: MAX_SENTENCES,
    emb: takeBytes(vocabRows * 256),
    embScales: take(vocabRows),
    timing: take(MAX_TOKENS * 256),
    vocabRows,
    l0: { attnNorm: norm(256), qkv: dense(256, 768), residual: dense(256, 512), out: dense(256, 512), ffnNorm: norm(512), ffn1: dense(512, 1536), ffn2: dense(1536, 512) },
    l1: { attnNorm: norm(512), qkv: dense(512, 1536), out: dense(512, 512), ffnNorm: norm(512), ffn1: dense(512, 1536), ffn2: dense(1536, 512) },
    tanh: dense(512, 512),
    x0: take(MAX_ROWS * 256),
    norm: take(MAX_ROWS * 512),
    qkv: take(MAX_ROWS * 1536),
    ctx: take(MAX_ROWS * 512),
    h: take(MAX_ROWS * 512),
    ffn: take(MAX_ROWS * 1536),
    ffnMean: take(MAX_SENTENCES * 1536),
    pooled: take(MAX_SENTENCES * 512),
    out: take(MAX_SENTENCES * 512),
    aq: takeBytes(aRows * 1536 * 2),
    aScales: take(aRows),
    offsets: take(MAX_SENTENCES),
    lengths: take(MAX_SENTENCES),
    scratchBytes: 2 * MAX_TOKENS * MAX_TOKENS * 4,
    scratch: 0,
    ctrl: 0,
    pages: 0,
  };
  layout.scratch = take((layout.scratchBytes / 4) * threads);
  layout.ctrl = take(CTRL_INTS);
  layout.pages = Math.ceil(at / 65536);
  return layout;
}
