// Reads a file imported `with { type: "file" }`. The build (scripts/build.ts) stores the large
// binary assets gzipped inside the executable, and from source they are the packages' own files:
// the gzip magic, which neither a WebAssembly module (`\0asm`), the packed weights nor JSON starts
// with, says which one this is.
const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

export function isGzipped(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === GZIP_MAGIC_0 && bytes[1] === GZIP_MAGIC_1;
}

/** The bytes of an embedded (or source) file, decompressed when the build compressed it. */
export async function readEmbeddedFile(path: string): Promise<Uint8Array> {
  const bytes = await Bun.file(path).bytes();
  return isGzipped(bytes) ? Bun.gunzipSync(bytes) : bytes;
}
