// Memory layout: packed weights, activations, per-thread scratch and a control block, all in one
// shared WebAssembly.Memory. Offsets are in bytes, 64-byte aligned.
import { MAX_ROWS, MAX_SENTENCES, MAX_TOKENS } from "./limits";

export interface Dense {
  w: number; // packed [N/16][K][16]
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
  emb: number; // [8002, 256]
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

export function makeLayout(threads: number): Layout {
  let at = 0;
  const take = (floats: number) => {
    const start = at;
    at += Math.ceil((floats * 4) / 64) * 64;
    return start;
  };
  const dense = (k: number, n: number): Dense => ({ w: take(k * n), b: take(n), k, n });
  const norm = (dim: number): Norm => ({ scale: take(dim), bias: take(dim), dim });
  const vocabRows = 8002;
  const layout = {
    threads,
    maxRows: MAX_ROWS,
    maxSentences: MAX_SENTENCES,
    emb: take(vocabRows * 256),
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
