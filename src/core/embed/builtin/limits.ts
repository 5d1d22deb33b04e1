// Size limits of the builtin embedder, shared by the tokenizer, the memory layout, the weight packing
// and the scheduler.

/** The graph keeps the first 128 tokens of a text (ClipToMaxLength). */
export const MAX_TOKENS = 128;
/**
 * A batch is cut into chunks of at most this many tokens (one forward pass each), so a query waits
 * behind at most one chunk; the activation buffers are sized for it.
 */
export const CHUNK_TOKENS = 128;
/**
 * Background chunks while recalls are being asked: a query waits behind at most this much work
 * (a 128-token chunk takes ~7 ms on two cores here; smaller GEMMs cost some throughput).
 */
export const BUSY_CHUNK_TOKENS = 24;
export const MAX_ROWS = Math.max(CHUNK_TOKENS, MAX_TOKENS);
export const MAX_SENTENCES = 256;
