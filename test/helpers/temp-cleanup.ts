// Temporary directories of the whole test run, removed once every test file is done. Loaded first
// by bunfig.toml's test preload, so its afterAll is global; bun test fires no process "exit" event,
// so a cleanup registered there never ran and each run left ~300 MB of sandboxes in /tmp.
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
