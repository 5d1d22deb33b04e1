// The harness process a hook or signet-mcp runs under (src/os/harness-process.ts), with real
// processes: a child of this test finds this process whether it runs directly or under one or two
// shells, and `ps` (what macOS has instead of /proc) reads the same facts as /proc.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { procInfo } from "../../src/os/proc-stat";
import { psProcess } from "../../src/os/harness-process";

const BUN = resolve(import.meta.dir, "../../node_modules/.bin/bun");
const MODULE = resolve(import.meta.dir, "../../src/os/harness-process.ts");
const PRINT = `import { harnessProcess } from ${JSON.stringify(MODULE)}; console.log(harnessProcess());`;

async function childSays(argv: string[]): Promise<string> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  expect(code).toBe(0);
  return out.trim();
}

test("a child finds this process directly, under a shell, and under two", async () => {
  const me = `${process.pid}:${procInfo(process.pid)!.started}`;
  const direct = `'${BUN}' -e '${PRINT}'`;
  expect(await childSays([BUN, "-e", PRINT])).toBe(me);
  // `; true` keeps each shell from replacing itself with the command.
  expect(await childSays(["/bin/sh", "-c", `${direct}; true`])).toBe(me);
  expect(await childSays(["/bin/sh", "-c", `bash -c ${JSON.stringify(`${direct}; true`)}; true`])).toBe(me);
});

test("ps reports a process's parent and name as /proc does, and a start time; nothing for a pid that is gone", () => {
  const facts = psProcess(process.pid)!;
  expect(facts.ppid).toBe(procInfo(process.pid)!.ppid);
  expect(facts.name).toBe(readFileSync("/proc/self/comm", "utf8").trim());
  expect(facts.started).toMatch(/^\w{3} \w{3} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/);
  expect(psProcess(2 ** 22 + 1)).toBeNull();
});
