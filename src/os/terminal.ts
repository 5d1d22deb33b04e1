// Whether a file descriptor is a terminal, asked cheaply: only a character device can be one, and
// only then is node:tty loaded. Building it (or process.stdout, which asks it) costs a short command
// or a prompt's hook more than the rest of its start.
import { fstatSync } from "node:fs";

export function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const { isatty }: typeof import("node:tty") = require("node:tty");
  return isatty(fd);
}
