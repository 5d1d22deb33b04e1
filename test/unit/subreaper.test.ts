// The daemon as child subreaper (prctl through bun:ffi), in a process of its own: the test runner
// itself must never adopt its children's orphans.
import { expect, test } from "bun:test";

test("a subreaper adopts an orphaned grandchild, and collects it once it is killed", async () => {
  const script = `
    import { spawnSync } from "node:child_process";
    import { becomeChildSubreaper, reapChild } from ${JSON.stringify(require.resolve("../../src/os/libc"))};
    import { procInfo } from ${JSON.stringify(require.resolve("../../src/os/proc-stat"))};
    const unavailable = becomeChildSubreaper();
    // The shell exits at once: its sleep is orphaned, and adopted.
    const pid = Number(String(spawnSync("/bin/sh", ["-c", "sleep 1000 >/dev/null 2>&1 & echo $!"]).stdout));
    const adoptedBy = procInfo(pid)?.ppid;
    process.kill(pid, "SIGKILL");
    let state = procInfo(pid)?.state;
    while (state !== undefined && state !== "Z") { await Bun.sleep(5); state = procInfo(pid)?.state; }
    const collected = reapChild(pid);
    console.log(JSON.stringify({ unavailable, adopted: adoptedBy === process.pid, zombie: state === "Z", collected, gone: procInfo(pid) === null }));`;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const out = JSON.parse(await new Response(proc.stdout).text());
  expect(await proc.exited).toBe(0);
  expect(out).toEqual({ adopted: true, zombie: true, collected: true, gone: true });
});

test("collecting is refused for anything but a plain positive pid", async () => {
  const { reapChild } = await import("../../src/os/libc");
  for (const pid of [0, -1, -4242, 1.5, Number.NaN]) expect(reapChild(pid)).toBe(false);
});
