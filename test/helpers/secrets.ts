// Secrets test helpers: a daemon on a given data directory with a recording logger (to grep its log
// lines), polling a secret exec job to its end, and a walk of every file under a directory.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import type { ExecJob } from "../../src/contracts/secrets";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";
import { jsonCall } from "./json-call";
import { recordingLogger } from "./log";

export interface LoggedDaemon {
  daemon: RunningDaemon;
  lines: string[];
  /** The owner's admin token and instance key, as the CLI and signet-mcp send them. */
  owner: Record<string, string>;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

/** A daemon on `dataDir` (keyword-only, free port) whose log lines are kept in `lines`. */
export async function startLoggedDaemon(dataDir: string, yaml = ""): Promise<LoggedDaemon> {
  writeFileSync(join(dataDir, "agent.yaml"), `${yaml}\nembedding:\n  provider: none\nanalytics:\n  flushMs: 50\n`);
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
  const { log, lines } = recordingLogger();
  const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } }, { log });
  const owner = {
    authorization: `Bearer ${daemon.context.credentials.adminToken}`,
    "x-signet-instance-key": daemon.context.credentials.instanceKey,
  };
  const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = owner) => jsonCall(daemon.url, method, path, body, headers);
  return { daemon, lines, owner, api };
}

/** Polls the job until it is no longer queued or running. */
export async function finished(api: LoggedDaemon["api"], id: string, ms = 20_000): Promise<ExecJob> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { body } = await api("GET", `/api/secrets/exec/${id}`);
    if (body.status !== "queued" && body.status !== "running") return body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${body.status} after ${ms} ms`);
    await Bun.sleep(20);
  }
}

/** Every regular file under `dir`, with its bytes. */
export function allFiles(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    try {
      out.push({ path, bytes: readFileSync(path) });
    } catch {
      // removed meanwhile (a -shm or temp file)
    }
  }
  return out;
}
