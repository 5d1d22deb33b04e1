// Assets the build stores gzipped read back as the packages' own bytes (src/os/embedded-file.ts).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isGzipped, readEmbeddedFile } from "../../src/os/embedded-file";
import { tempDir } from "../helpers/temp-cleanup";

const WASM = Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

describe("readEmbeddedFile", () => {
  test("a gzipped file is inflated, a plain one is read as it is", async () => {
    const dir = tempDir();
    const plain = join(dir, "grammar.wasm");
    const packed = join(dir, "grammar.wasm.gz");
    writeFileSync(plain, WASM);
    writeFileSync(packed, Bun.gzipSync(WASM));
    expect(await readEmbeddedFile(plain)).toEqual(WASM);
    expect(await readEmbeddedFile(packed)).toEqual(WASM);
  });

  test("only the gzip magic counts as compressed: WebAssembly, JSON and an empty file do not", () => {
    expect(isGzipped(Bun.gzipSync(WASM))).toBe(true);
    expect(isGzipped(WASM)).toBe(false);
    expect(isGzipped(new TextEncoder().encode('[["<unk>",0]]'))).toBe(false);
    expect(isGzipped(new Uint8Array())).toBe(false);
  });

  test("a file that is missing is an error naming it", async () => {
    const missing = join(tempDir(), "absent.q8");
    await expect(readEmbeddedFile(missing)).rejects.toThrow(/absent\.q8|ENOENT|No such file/);
  });
});
