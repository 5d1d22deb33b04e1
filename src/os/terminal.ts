// Whether a file descriptor is a terminal, asked cheaply: only a character device can be one, and
// only then is node:tty loaded. Building it (or process.stdout, which asks it) costs a short command
// or a prompt's hook more than the rest of its start.
import { fstatSync } from "node:fs";

/** Linux's memory devices (/dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom): never a terminal. */
const LINUX_MEMORY_DEVICES_MAJOR = 1;

/** The major number of a Linux device number (glibc's gnu_dev_major). */
function linuxMajor(rdev: number): number {
  return ((rdev >>> 8) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
}

export function isTerminal(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    if (!stat.isCharacterDevice()) return false;
    // Output sent to /dev/null (a script's or a cron job's) is a character device too, and common.
    if (process.platform === "linux" && linuxMajor(stat.rdev) === LINUX_MEMORY_DEVICES_MAJOR) return false;
  } catch {
    return false;
  }
  const { isatty }: typeof import("node:tty") = require("node:tty");
  return isatty(fd);
}
