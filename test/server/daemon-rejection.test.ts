// A promise rejected with nothing to handle it ends a Bun process; the daemon run by `signet daemon
// run` (runDaemonForeground) logs it and keeps serving (src/server/rejection-guard.ts). A process of
// its own runs the real foreground daemon, with a rejection nobody handles once it listens.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp-cleanup";
import { eventually } from "../helpers/wait";

const ROOT = join(import.meta.dir, "..", "..");
const running: Bun.Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

/** Runs `code` in a Bun process of its own; its stderr is collected as it comes. */
function spawnScript(code: string, dataDir: string): { proc: Bun.Subprocess<"ignore", "pipe", "pipe">; stderr: () => string } {
  const script = join(tempDir("signet-rejection-script-"), "run.ts");
  writeFileSync(script, code);
  const proc = Bun.spawn([process.execPath, script], {
    env: { PATH: process.env.PATH ?? "", HOME: dataDir, SIGNET_PATH: dataDir },
    cwd: dataDir,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  running.push(proc);
  let text = "";
  void (async () => {
    const decoder = new TextDecoder();
    const reader = proc.stderr.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true });
  })();
  return { proc, stderr: () => text };
}

describe("an unhandled rejection in the daemon", () => {
  test("is what ends a Bun process when nothing handles it", async () => {
    const { proc, stderr } = spawnScript(`setTimeout(() => console.log("alive"), 200);\nPromise.reject(new Error("nobody handles this"));\n`, tempDir());
    expect(await proc.exited).not.toBe(0);
    expect(stderr()).toContain("nobody handles this");
  });

  test("is logged with its stack, and the daemon keeps serving until it is stopped", async () => {
    const dataDir = tempDir("signet-rejection-data-");
    writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
    const pidFile = join(dataDir, ".daemon", "daemon.pid");
    const { proc, stderr } = spawnScript(
      [
        `import { existsSync } from "node:fs";`,
        `import { loadConfig } from ${JSON.stringify(join(ROOT, "src/config/load.ts"))};`,
        `import { runDaemonForeground } from ${JSON.stringify(join(ROOT, "src/server/daemon.ts"))};`,
        `const config = loadConfig();`,
        // Once the daemon listens (its record written), a rejection nobody awaits, as a background path that missed its catch would leave.
        `const watch = setInterval(() => {`,
        `  if (!existsSync(${JSON.stringify(pidFile)})) return;`,
        `  clearInterval(watch);`,
        `  Promise.reject(new Error("a background path missed its catch"));`,
        `}, 20);`,
        `await runDaemonForeground({ ...config, daemon: { ...config.daemon, port: 0 } });`,
      ].join("\n"),
      dataDir,
    );
    expect(await eventually(() => stderr().includes("a background path missed its catch"), 30_000)).toBe(true);
    expect(stderr()).toContain("a promise was rejected with nothing to handle it (the daemon keeps running)");
    // The stack follows the line: where it came from is in the log.
    expect(stderr()).toMatch(/a background path missed its catch\n\s+at /);
    const url = /listening on (http:\/\/\S+)/.exec(stderr())?.[1];
    expect(url).toBeDefined();
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(proc.exitCode).toBeNull();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(stderr()).toContain("stopped");
    expect(existsSync(pidFile)).toBe(false);
  });
});
