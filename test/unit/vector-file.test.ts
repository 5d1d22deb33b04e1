// The vector index's float vectors in a file (vector-file.ts): records written, read back and moved
// exactly, nothing left in the directory from the moment it is open, and a clear error for a closed
// file or a record of the wrong size.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VectorFile, vectorFileDir } from "../../src/core/search/vector-file";
import { openFilePaths } from "../helpers/open-files";
import { tempDir } from "../helpers/temp-cleanup";

/** The paths of this process's open files whose name starts with `.vectors-`. */
function openVectorFiles(): string[] {
  return openFilePaths((path) => path.includes("/.vectors-"));
}

describe("VectorFile", () => {
  test("records read back as written and moved; the file is unlinked at once and gone when closed", () => {
    const dir = tempDir("signet-vector-file-");
    const before = openVectorFiles().length;
    const file = new VectorFile(dir, 12);
    expect(readdirSync(dir)).toEqual([]);
    // Still open (the kernel keeps it until it is closed), in `dir`, deleted.
    const open = openVectorFiles();
    expect(open).toHaveLength(before + 1);
    expect(open.some((path) => path.startsWith(`${dir}/.vectors-`) && path.endsWith("(deleted)"))).toBe(true);

    const record = (a: number, b: number, c: number) => new Uint8Array(Float32Array.of(a, b, c).buffer);
    file.write(0, record(1, 2, 3));
    file.write(5, record(-0.5, 0.25, 1e-30));
    file.write(2, record(4, 5, 6));
    const into = new Uint8Array(40);
    file.read(5, into, 4);
    expect([...new Float32Array(into.buffer, 4, 3)]).toEqual([-0.5, 0.25, Math.fround(1e-30)]);
    file.move(5, 0);
    file.read(0, into, 16);
    expect([...new Float32Array(into.buffer, 16, 3)]).toEqual([-0.5, 0.25, Math.fround(1e-30)]);
    file.read(2, into, 28);
    expect([...new Float32Array(into.buffer, 28, 3)]).toEqual([4, 5, 6]);

    expect(() => file.write(1, new Uint8Array(8))).toThrow("a record is 12 bytes, not 8");
    // A record past the end was never written.
    expect(() => file.read(9, into, 0)).toThrow("read 0 of 12 bytes of record 9");
    file.close();
    file.close();
    expect(openVectorFiles()).toHaveLength(before);
    expect(() => file.read(0, into, 0)).toThrow("vector file: closed");
    expect(() => file.write(0, record(1, 2, 3))).toThrow("vector file: closed");
  });

  test("a directory that does not exist is an error that names it", () => {
    const missing = join(tempDir("signet-vector-file-"), "nowhere");
    expect(() => new VectorFile(missing, 8)).toThrow(missing);
  });

  test("an index's file goes beside its database, an in-memory database's in the temporary directory", () => {
    expect(vectorFileDir({ filename: "/data/signet/memory/memories.db" })).toBe("/data/signet/memory");
    expect(vectorFileDir({ filename: ":memory:" })).toBe(tmpdir());
    expect(vectorFileDir({ filename: "" })).toBe(tmpdir());
  });
});
