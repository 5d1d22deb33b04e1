// Worker code. This function is stringified into a Blob and run in each worker, so it must not
// use anything from outside its own body (no imports, no module-level names).
// Thread 0 is the leader: it receives token ids, runs the forward pass and posts vectors back.
// Threads 1..n-1 are helpers: they wait on the control block and help with each step.
// A step is cut into chunks (a few column panels of a matrix product, one attention head of one
// sentence) that every thread claims one at a time from a shared counter, so a thread that the
// system keeps waiting (the daemon's other work, another process) delays a step by at most the
// chunk it holds, not by a fixed share of it.
// Control block (int32 indices from ctrl/4): [0] sequence, [1] op, [2..15] args, [32] the calling
// thread is busy, [33] the next chunk (high 16 bits) and how many the step has (low 16 bits),
// [34] chunks completed, [35] 1 while a query waits (background chunks not started yet are handed
// back).
// This module therefore imports nothing; createBuiltinEmbedder (create.ts) serializes the function.

export function workerMain(): void {
  const scope = globalThis as any;
  const OP_GEMM = 1;
  const OP_ATTENTION = 2;
  const OP_EXIT = 3; // CTRL_OP_EXIT
  const CALLER_BUSY = 32; // CTRL_CALLER_BUSY
  const SPINS = 100; // a futex wake is ~10-20 us here; spinning longer only took a core from the others
  const NEXT = 33;
  const COMPLETED = 34;
  const DEFER_BACKGROUND = 35; // CTRL_DEFER_BACKGROUND
  /** Column panels (16 columns each) per chunk of a matrix product: ~20 us for a query's rows. */
  const PANELS_PER_CHUNK = 2;
  let L: any;
  let f32: Float32Array;
  let i32: Int32Array;
  let i8: Int8Array;
  let quantize: (...args: number[]) => void;
  let layerNormKernel: (...args: number[]) => void;
  let meanRowsKernel: (...args: number[]) => void;
  let softmaxKernel: (...args: number[]) => void;
  let gemmQ: (...args: number[]) => void;
  let gemmStrided: (...args: number[]) => void;
  let thread = 0;
  let threads = 1;
  let C = 0; // control block, int32 index
  let sequence = 0;

  // Rows of A are processed in blocks of this many, so a block stays in L2 across column panels.
  const ROW_BLOCK = 64;

  function gemmPart(chunk: number, q: number, ldq: number, scales: number, b: number, colScales: number, bias: number, c: number, ldc: number, m: number, pairs: number, panels: number, flags: number): void {
    const p0 = chunk * PANELS_PER_CHUNK;
    const p1 = Math.min(panels, p0 + PANELS_PER_CHUNK);
    for (let r = 0; r < m; r += ROW_BLOCK) {
      gemmQ(q + r * ldq, ldq, scales + r * 4, b, colScales, bias, c + r * ldc, ldc, Math.min(ROW_BLOCK, m - r), pairs, p0, p1, flags);
    }
  }

  /** One head of one sentence: chunk = sentence * heads + head. */
  function attentionPart(chunk: number, qkv: number, dim: number, depth: number, heads: number, scale: number, ctx: number): void {
    const stride = 3 * dim; // floats per qkv row
    const kt = L.scratch + thread * L.scratchBytes; // [depth][T16]
    const s = kt + (L.scratchBytes >> 1); // [T][T16]
    const n = Math.floor(chunk / heads);
    const h = chunk % heads;
    const T = i32[(L.lengths >> 2) + n]!;
    const row0 = i32[(L.offsets >> 2) + n]!;
    if (T === 0) return;
    const T16 = (T + 15) & ~15;
    // K^T for this head
    const ktf = kt >> 2;
    let src = (qkv >> 2) + row0 * stride + dim + h * depth;
    for (let j = 0; j < T; j++, src += stride) {
      for (let d = 0; d < depth; d++) f32[ktf + d * T16 + j] = f32[src + d]!;
    }
    // S = Q K^T
    gemmStrided(qkv + (row0 * stride + h * depth) * 4, stride * 4, kt, T16 * 4, 0, s, T16 * 4, T, depth, 0, T16 >> 4, 0);
    softmaxKernel(s, T16 * 4, T, T, scale);
    // context = P V
    gemmStrided(s, T16 * 4, qkv + (row0 * stride + 2 * dim + h * depth) * 4, stride * 4, 0, ctx + (row0 * dim + h * depth) * 4, dim * 4, T, T, 0, depth >> 4, 0);
  }

  function runChunk(chunk: number): void {
    const a = C + 2;
    const op = i32[C + 1];
    if (op === OP_GEMM) {
      gemmPart(chunk, i32[a]!, i32[a + 1]!, i32[a + 2]!, i32[a + 3]!, i32[a + 4]!, i32[a + 5]!, i32[a + 6]!, i32[a + 7]!, i32[a + 8]!, i32[a + 9]!, i32[a + 10]!, i32[a + 11]!);
    } else if (op === OP_ATTENTION) {
      attentionPart(chunk, i32[a]!, i32[a + 1]!, i32[a + 2]!, i32[a + 3]!, f32[a + 4]!, i32[a + 5]!);
    }
  }

  /**
   * Claims and runs the current step's chunks until none is left. A claim succeeds only while the
   * step has chunks left, and the leader rewrites a step's arguments only once all of its chunks are
   * completed, so the op and arguments a chunk reads after its claim are its own step's.
   */
  function work(): void {
    for (;;) {
      const next = Atomics.load(i32, C + NEXT);
      const chunk = next >>> 16;
      if (chunk >= (next & 0xffff)) return;
      if (Atomics.compareExchange(i32, C + NEXT, next, next + 0x10000) !== next) continue;
      runChunk(chunk);
      if (Atomics.add(i32, C + COMPLETED, 1) + 1 === (next & 0xffff)) Atomics.notify(i32, C + COMPLETED);
    }
  }

  /** Leader: publish a step, claim chunks with the helpers, wait for the chunks they still hold. */
  function parallel(op: number, args: number[], chunks: number, floatArg = -1): void {
    for (let i = 0; i < args.length; i++) {
      if (i === floatArg) f32[C + 2 + i] = args[i]!;
      else i32[C + 2 + i] = args[i]!;
    }
    i32[C + 1] = op;
    Atomics.store(i32, C + COMPLETED, 0);
    Atomics.store(i32, C + NEXT, chunks);
    // While the calling thread works too (a recall's keyword leg beside its query's pass), a helper
    // would wait for a core at every step on a machine with a core per compute thread: the helpers
    // are not woken then, and the leader runs every chunk itself, the same chunks, so the vectors
    // are the same.
    if (threads > 1 && Atomics.load(i32, C + CALLER_BUSY) !== 1) {
      sequence++;
      Atomics.store(i32, C, sequence);
      Atomics.notify(i32, C);
    }
    work();
    let spins = 0;
    for (;;) {
      const completed = Atomics.load(i32, C + COMPLETED);
      if (completed === chunks) break;
      if (++spins > SPINS) Atomics.wait(i32, C + COMPLETED, completed, 50);
    }
  }

  /** C = A x W (+ bias): A's rows quantized to int16 here, then the integer product in parallel. */
  function gemm(a: number, lda: number, d: any, c: number, ldc: number, m: number, flags: number): void {
    const pairs = (d.k + 1) >> 1;
    quantize(a, lda, L.aq, pairs * 4, L.aScales, m, d.k);
    parallel(OP_GEMM, [L.aq, pairs * 4, L.aScales, d.w, d.scales, d.b, c, ldc, m, pairs, d.n >> 4, flags], Math.ceil((d.n >> 4) / PANELS_PER_CHUNK));
  }

  function layerNorm(src: number, dst: number, rows: number, p: any): void {
    layerNormKernel(src, dst, rows, p.dim, p.scale, p.bias);
  }

  /** Each sentence's mean of its rows of `src` (`width` floats each) into row n of `dst`; zeros for an empty one. */
  function meanRows(src: number, dst: number, width: number, lengths: Int32Array): void {
    for (let n = 0, r = 0; n < lengths.length; r += lengths[n]!, n++) meanRowsKernel(src + r * width * 4, lengths[n]!, width, dst + n * width * 4);
  }

  function forward(ids: Int32Array, lengths: Int32Array): Float32Array {
    const sentences = lengths.length;
    let rows = 0;
    for (let n = 0; n < sentences; n++) {
      i32[(L.offsets >> 2) + n] = rows;
      i32[(L.lengths >> 2) + n] = lengths[n]!;
      rows += lengths[n]!;
    }
    if (rows > L.maxRows || sentences > L.maxSentences) throw new Error("chunk too large");
    // x0 = embedding + (embedding + timing signal), as the graph adds them; an embedding row is
    // int8 values times the row's scale
    const embScales = L.embScales >> 2;
    const timing = L.timing >> 2;
    const x0 = L.x0 >> 2;
    for (let n = 0, r = 0; n < sentences; n++) {
      for (let pos = 0; pos < lengths[n]!; pos++, r++) {
        const e = L.emb + ids[r]! * 256;
        const scale = f32[embScales + ids[r]!]!;
        const tm = timing + pos * 256;
        const x = x0 + r * 256;
        for (let j = 0; j < 256; j++) {
          const v = Math.fround(i8[e + j]! * scale);
          f32[x + j] = v + Math.fround(v + f32[tm + j]!);
        }
      }
    }
    const l0 = L.l0;
    const l1 = L.l1;
    // layer 0 (256 -> 512): attention on the normalized input, residual through a dense projection
    if (rows > 0) {
      layerNorm(L.x0, L.norm, rows, l0.attnNorm);
      gemm(L.norm, 256 * 4, l0.qkv, L.qkv, 768 * 4, rows, 0);
      gemm(L.x0, 256 * 4, l0.residual, L.h, 512 * 4, rows, 0);
      parallel(OP_ATTENTION, [L.qkv, 256, 64, 4, 0.125, L.ctx], sentences * 4, 4);
      gemm(L.ctx, 256 * 4, l0.out, L.h, 512 * 4, rows, 2);
      layerNorm(L.h, L.norm, rows, l0.ffnNorm);
      gemm(L.norm, 512 * 4, l0.ffn1, L.ffn, 1536 * 4, rows, 1);
      gemm(L.ffn, 1536 * 4, l0.ffn2, L.h, 512 * 4, rows, 2);
      // layer 1 (512)
      layerNorm(L.h, L.norm, rows, l1.attnNorm);
      gemm(L.norm, 512 * 4, l1.qkv, L.qkv, 1536 * 4, rows, 0);
      parallel(OP_ATTENTION, [L.qkv, 512, 128, 4, 0.0883883461356163, L.ctx], sentences * 4, 4);
      gemm(L.ctx, 512 * 4, l1.out, L.h, 512 * 4, rows, 2);
      layerNorm(L.h, L.norm, rows, l1.ffnNorm);
      gemm(L.norm, 512 * 4, l1.ffn1, L.ffn, 1536 * 4, rows, 1);
    }
    // The output is the mean over each sentence's tokens of h + FFN2(f) (f: the FFN's hidden rows),
    // and FFN2 is linear: that is mean(h) + FFN2(mean(f)), one FFN2 row per sentence instead of one
    // per token (a sixth of the pass's arithmetic). An empty text pools to zeros, as in the graph.
    meanRows(L.h, L.pooled, 512, lengths);
    if (rows > 0) {
      meanRows(L.ffn, L.ffnMean, 1536, lengths);
      gemm(L.ffnMean, 1536 * 4, l1.ffn2, L.pooled, 512 * 4, sentences, 2);
      for (let n = 0; n < sentences; n++) if (lengths[n] === 0) f32.fill(0, (L.pooled >> 2) + n * 512, (L.pooled >> 2) + (n + 1) * 512);
    }
    gemm(L.pooled, 512 * 4, L.tanh, L.out, 512 * 4, sentences, 0);
    const result = new Float32Array(sentences * 512);
    const out = L.out >> 2;
    for (let n = 0; n < sentences; n++) {
      let sq = 0;
      for (let j = 0; j < 512; j++) {
        const v = Math.tanh(f32[out + n * 512 + j]!);
        result[n * 512 + j] = v;
        sq += v * v;
      }
      const inv = 1 / Math.sqrt(Math.max(sq, 1e-12));
      for (let j = 0; j < 512; j++) result[n * 512 + j] = result[n * 512 + j]! * inv;
    }
    return result;
  }

  function helperLoop(): void {
    let seen = 0;
    for (;;) {
      let spins = 0;
      let now: number;
      while ((now = Atomics.load(i32, C)) === seen) {
        if (++spins > SPINS) Atomics.wait(i32, C, seen);
      }
      seen = now;
      if (i32[C + 1] === OP_EXIT) return;
      work();
    }
  }

  scope.onmessage = (event: MessageEvent) => {
    const msg = event.data;
    if (msg.type === "init") {
      L = msg.layout;
      thread = msg.thread;
      threads = msg.threads;
      C = L.ctrl >> 2;
      f32 = new Float32Array(msg.memory.buffer);
      i32 = new Int32Array(msg.memory.buffer);
      i8 = new Int8Array(msg.memory.buffer);
      const instance = new WebAssembly.Instance(msg.module, { env: { mem: msg.memory } });
      quantize = instance.exports.quantize as any;
      layerNormKernel = instance.exports.layer_norm as any;
      meanRowsKernel = instance.exports.mean_rows as any;
      softmaxKernel = instance.exports.softmax as any;
      gemmQ = instance.exports.gemm_q as any;
      gemmStrided = instance.exports.gemm_strided as any;
      scope.postMessage({ type: "ready", thread });
      if (thread > 0) {
        helperLoop();
        scope.close();
      }
    } else if (msg.type === "embed") {
      if (!msg.query && Atomics.load(i32, C + DEFER_BACKGROUND) === 1) {
        scope.postMessage({ type: "deferred", id: msg.id });
        return;
      }
      try {
        const vectors = forward(msg.ids, msg.lengths);
        scope.postMessage({ type: "vectors", id: msg.id, vectors }, [vectors.buffer]);
      } catch (err) {
        scope.postMessage({ type: "error", id: msg.id, message: String((err as Error)?.message ?? err) });
      }
    }
  };
}
