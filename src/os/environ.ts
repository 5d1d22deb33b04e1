// Taking a variable out of this process's environment for good. Deleting it from process.env is not
// enough on Linux: /proc/<pid>/environ shows the environment block the process started with, which
// the kernel keeps at env_start..env_end of its memory (/proc/<pid>/stat fields 50 and 51), and any
// process of the same account may read it. The entry is overwritten there with NUL bytes through
// /proc/self/mem, which a process may always write for itself.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { procStatFields } from "./proc-stat";

/** Field numbers of /proc/<pid>/stat, counted from 1 as proc(5) does; procStatFields starts at field 3. */
const ENV_START_FIELD = 50;
const ENV_END_FIELD = 51;

/** Removes `name` from the environment and, on Linux, from the block /proc/self/environ shows. */
export function takeFromEnvironment(name: string): string | undefined {
  const value = process.env[name];
  delete process.env[name];
  if (value !== undefined) scrubStartBlock(name);
  return value;
}

function scrubStartBlock(name: string): void {
  const fields = procStatFields("self");
  if (!fields) return;
  const start = Number(fields[ENV_START_FIELD - 3]);
  const end = Number(fields[ENV_END_FIELD - 3]);
  if (!(end > start)) return;
  let fd: number | undefined;
  try {
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    const key = Buffer.from(`${name}=`);
    // Entries are NUL-separated: a match counts only at the start of one.
    for (let at = block.indexOf(key); at !== -1; at = block.indexOf(key, at + 1)) {
      if (at > 0 && block[at - 1] !== 0) continue;
      const stop = block.indexOf(0, at);
      const length = (stop === -1 ? block.length : stop) - at;
      writeSync(fd, Buffer.alloc(length), 0, length, start + at);
    }
  } catch {
    // a kernel that refuses: process.env no longer holds it, which is what children inherit
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
