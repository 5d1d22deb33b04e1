// Temporary directories of the tests, removed by a preload-level afterAll (bunfig.toml's test
// preload loads this first). Under `bun test --parallel` (npm test) each file runs in a fresh global
// where the preload runs again, so a file's directories go when it is done, after its own afterAll;
// a plain `bun test` shares one global, and they go once every file is done. bun test fires no
// process "exit" event, so a cleanup registered there never ran and each run left ~300 MB of
// sandboxes in /tmp.
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const paths: string[] = [];

/** A fresh directory under the system's temporary directory, removed when the test run ends. */
export function tempDir(prefix = "signet-test-"): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  paths.push(path);
  return path;
}

afterAll(() => {
  for (const path of paths.splice(0)) rmSync(path, { recursive: true, force: true });
});
