// An in-process daemon on a temporary data directory and a free loopback port, for route tests.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignetClient } from "../../src/client/client";
import { tempDir } from "./temp-cleanup";
import { loadConfig } from "../../src/config/load";
import { startDaemon, type RunningDaemon } from "../../src/server/daemon";

export interface TestDaemon {
  url: string;
  dataDir: string;
  daemon: RunningDaemon;
  /** A client acting as `agentId` (default "default"), with CLI-like provenance and the owner's credentials. */
  client(agentId?: string): SignetClient;
  /** The owner's credentials as the CLI sends them: the admin token and the instance key. */
  ownerHeaders: Record<string, string>;
  /** Raw fetch against the daemon, for malformed requests the client would never send. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

// A fresh temporary directory, removed when the test run ends.
export { tempDir } from "./temp-cleanup";

/** `yaml` is written to agent.yaml; without an `embedding:` section the provider is `none`. */
/** `dataDir`: start again on the data directory of a daemon that stopped (its agent.yaml as it was). */
export async function startTestDaemon(options: { yaml?: string; env?: Record<string, string>; dataDir?: string } = {}): Promise<TestDaemon> {
  const dataDir = options.dataDir ?? tempDir();
  // Keyword-only unless a test asks for an embedding provider: loading the builtin model is slow.
  const yaml = options.yaml ?? "";
  if (!options.dataDir) writeFileSync(join(dataDir, "agent.yaml"), /^embedding:/m.test(yaml) ? yaml : `${yaml}\nembedding:\n  provider: none\n`);
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir, ...options.env } });
  // Port 0: the OS picks a free port; the daemon reports the real one.
  const daemon = await startDaemon({ ...config, daemon: { ...config.daemon, port: 0 } });
  return {
    url: daemon.url,
    dataDir,
    daemon,
    client: (agentId = "default") => new SignetClient({ baseUrl: daemon.url, agentId, actor: "test", actorType: "operator", dataDir }),
    ownerHeaders: {
      authorization: `Bearer ${daemon.context.credentials.adminToken}`,
      "x-signet-instance-key": daemon.context.credentials.instanceKey,
    },
    fetch: (path, init) => fetch(`${daemon.url}${path}`, init),
    async stop() {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
