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

/** The text (UTF-8) of `stream`, or null (the rest cancelled) once its bytes pass `limit`. */
export async function readTextUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<string | null> {
  const bytes = await readUpTo(stream, limit);
  return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/** A response's body as text, or null (the rest left unread) once it is longer than `maxBytes`. */
export async function textUpTo(res: Response, maxBytes: number): Promise<string | null> {
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body?.cancel();
    return null;
  }
  return res.body ? readTextUpTo(res.body, maxBytes) : "";
}
