// isTerminal: true only for a terminal; the character devices that are not one (/dev/null, where
// scripts and cron jobs send output) are told apart without loading node:tty.
import { describe, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isTerminal } from "../../src/os/terminal";
import { tempDir } from "../helpers/temp-cleanup";

const SCRIPT = Bun.which("script");
/** A Bun process that prints whether its stdout is a terminal, as `terminal=true|false`. */
const PRINT_TERMINAL = `console.log("terminal=" + require(${JSON.stringify(join(import.meta.dir, "../../src/os/terminal"))}).isTerminal(1))`;

describe("isTerminal", () => {
  test("/dev/null, /dev/zero, a regular file and a pipe are not terminals", () => {
    const file = join(tempDir("signet-terminal-"), "f");
    writeFileSync(file, "x");
    for (const path of ["/dev/null", "/dev/zero", file]) {
      const fd = openSync(path, "r");
      try {
        expect({ path, terminal: isTerminal(fd) }).toEqual({ path, terminal: false });
      } finally {
        closeSync(fd);
      }
    }
    const piped = Bun.spawnSync([process.execPath, "-e", PRINT_TERMINAL]);
    expect(piped.stdout.toString().trim()).toBe("terminal=false");
  });

  // util-linux's `script` runs the check on a pseudo-terminal (Debian's bsdutils, always installed).
  test.skipIf(SCRIPT === null)("a pseudo-terminal is one", () => {
    const run = Bun.spawnSync([SCRIPT!, "-qec", `${process.execPath} -e '${PRINT_TERMINAL}'`, "/dev/null"]);
    expect(run.stdout.toString()).toContain("terminal=true");
  });
});
