// Reading a byte stream someone else writes (a request's body, a provider's answer) up to a limit:
// past it the rest is not read (the stream is cancelled), so an oversized one is never held whole.

/** The bytes of `stream`, or null (the rest cancelled) once they pass `limit`. */
export async function readUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
