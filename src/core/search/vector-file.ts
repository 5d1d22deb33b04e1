// The float vectors of a vector index, in a file of fixed-size records, one per slot: a search reads
// back only the few it scores exactly (vector-index.ts). In the daemon's memory they would be 2 KB
// each, 205 MB at 100,000 memories of 512 dimensions, most of what it holds; a positioned read of
// one from the kernel's page cache takes 2-5 µs, where reading it from memory_vectors through SQLite
// takes about 20 µs under writes. The file is unlinked as soon as it is open, so nothing is left on
// disk when the process ends, however it ends; the index that owns it closes it when dropped.
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A file whose index was dropped without close() is closed when the index is collected. */
const unclosed = new FinalizationRegistry<number>((fd) => closeSync(fd));

export class VectorFile {
  private fd: number | null;
  /** One record, for moving a record within the file. */
  private readonly moving: Uint8Array;

  /** A new, empty file in `dir` for records of `recordBytes`. */
  constructor(
    dir: string,
    private readonly recordBytes: number,
  ) {
    const path = join(dir, `.vectors-${randomUUID()}`);
    this.fd = openSync(path, "wx+", 0o600);
    unlinkSync(path);
    unclosed.register(this, this.fd, this);
    this.moving = new Uint8Array(recordBytes);
  }

  /** Writes `bytes` (one record) as record `slot`. */
  write(slot: number, bytes: Uint8Array): void {
    if (bytes.byteLength !== this.recordBytes) throw new Error(`a record is ${this.recordBytes} bytes, not ${bytes.byteLength}`);
    const written = writeSync(this.open(), bytes, 0, this.recordBytes, slot * this.recordBytes);
    if (written !== this.recordBytes) throw new Error(`vector file: wrote ${written} of ${this.recordBytes} bytes`);
  }

  /** Reads record `slot` into `into` from byte `at`. */
  read(slot: number, into: Uint8Array, at: number): void {
    const read = readSync(this.open(), into, at, this.recordBytes, slot * this.recordBytes);
    if (read !== this.recordBytes) throw new Error(`vector file: read ${read} of ${this.recordBytes} bytes of record ${slot}`);
  }

  /** Copies record `from` over record `to`. */
  move(from: number, to: number): void {
    this.read(from, this.moving, 0);
    this.write(to, this.moving);
  }

  close(): void {
    if (this.fd === null) return;
    unclosed.unregister(this);
    closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    if (this.fd === null) throw new Error("vector file: closed");
    return this.fd;
  }
}

/**
 * Where the vector files of indexes over `db`'s vectors go: beside the database, on the disk it is on
 * (an in-memory database's in the temporary directory).
 */
export function vectorFileDir(db: { filename: string }): string {
  return db.filename === "" || db.filename === ":memory:" ? tmpdir() : dirname(db.filename);
}
