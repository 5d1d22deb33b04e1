// The compiled binary loads a command's code when the command runs (scripts/build.ts, --splitting):
// its embedded file system holds the hook's, the MCP stdio server's, the memory commands' and the
// daemon's code as chunks of their own, so `signet --version` or a hook does not evaluate the rest.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { requireBinary } from "../helpers/binary";

/** The names of the JavaScript modules embedded in the binary (`/$bunfs/root/<name>.js`). */
function embeddedModules(path: string): Set<string> {
  const text = readFileSync(path).toString("latin1");
  return new Set([...text.matchAll(/\/\$bunfs\/root\/([A-Za-z0-9_-]+)\.js/g)].map((m) => m[1]!));
}

describe("the compiled binary", () => {
  test("holds each mode's and command's code as a chunk of its own, beside the workers", () => {
    const modules = [...embeddedModules(requireBinary())];
    for (const entry of ["parse-worker", "pdf-worker"]) expect(modules).toContain(entry);
    for (const chunk of ["hook", "stdio", "memory", "daemon"]) {
      expect(modules.some((name) => name.startsWith(`${chunk}-`))).toBe(true);
    }
  });
});
