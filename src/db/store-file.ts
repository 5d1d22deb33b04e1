// The SQLite file a daemon's store opened, known by device and inode. SQLite goes on writing to the
// file it opened even once its path no longer names it (deleted, or another file moved over it), so
// writes it acknowledges would be lost at the next start: the daemon checks the path still names
// that file before it acknowledges a write, and refuses to go on serving when it does not.
import { statSync } from "node:fs";

export class StoreFile {
  private readonly dev: number;
  private readonly ino: number;

  constructor(readonly path: string) {
    const s = statSync(path);
    this.dev = s.dev;
    this.ino = s.ino;
  }

  /** Null while the path names the file the store opened; otherwise what became of it. */
  problem(): string | null {
    try {
      const s = statSync(this.path);
      return s.dev === this.dev && s.ino === this.ino ? null : `the database file ${this.path} was replaced by another file while the daemon ran`;
    } catch {
      return `the database file ${this.path} was deleted while the daemon ran`;
    }
  }
}
