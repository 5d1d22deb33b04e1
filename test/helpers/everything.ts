// The real MCP server from npm that bridge tests drive (@modelcontextprotocol/server-everything),
// and process-table helpers to prove that no child outlives its owner.
import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import { procStatFields } from "../../src/os/proc-stat";
import { freePort } from "./binary";

export const EVERYTHING = resolve(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const NODE = Bun.which("node") ?? "node";

/** The stdio transport of an installed server running server-everything. */
export function everythingStdio(extra: { env?: Record<string, string> } = {}) {
  return { type: "stdio" as const, command: NODE, args: [EVERYTHING, "stdio"], env: extra.env ?? {} };
}

/** server-everything over streamable HTTP on a free port, owned by the caller (kill it when done). */
export async function startEverythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const proc = Bun.spawn([NODE, EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdout: "ignore",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await fetch(url, { method: "GET" }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill("SIGKILL");
      throw new Error(`server-everything (streamableHttp) did not listen on ${port}`);
    }
    await Bun.sleep(50);
  }
  return {
    url,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
}

function processTable(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(Number(entry));
    // Gone while we looked, or a zombie (exited; only its parent's wait is pending).
    if (!fields || fields[0] === "Z") continue;
    out.push({ pid: Number(entry), ppid: Number(fields[1]), pgrp: Number(fields[2]) });
  }
  return out;
}

/** Every live process started under `pid` (children, grandchildren, ...), or in its process group. */
export function descendants(pid: number): number[] {
  const table = processTable();
  const found = new Set<number>(table.filter((p) => p.pgrp === pid && p.pid !== pid).map((p) => p.pid));
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.pop()!;
    for (const p of table) {
      if (p.ppid === parent && !found.has(p.pid)) {
        found.add(p.pid);
        queue.push(p.pid);
      }
    }
  }
  return [...found];
}
