// A client that finds nothing at its URL while the data directory's daemon runs at another address
// (an explicit SIGNET_DAEMON_URL): the autostarter looks once (the pid file, then the lock), starts
// nothing and says where that daemon runs (docs/security.md#clients-check-who-answers).
import { afterAll, expect, test } from "bun:test";
import { DaemonNotStartedError } from "../../src/client/client";
import { loadConfig } from "../../src/config/load";
import { autostarter } from "../../src/control/autostart";
import { createLogger } from "../../src/logger";
import { freePort } from "../helpers/binary";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon";

let d: TestDaemon | undefined;
afterAll(() => d?.stop());

test("looks once and says where it runs, instead of starting a second daemon and retrying the same address", async () => {
  d = await startTestDaemon();
  const url = `http://127.0.0.1:${await freePort()}`;
  const env = { SIGNET_PATH: d.dataDir, HOME: d.dataDir, SIGNET_DAEMON_URL: url };
  const start = autostarter(loadConfig({ env }), createLogger("signet"), env)!;
  const err = await start().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DaemonNotStartedError);
  expect((err as Error).message).toContain(`the Signet daemon for ${d.dataDir} runs at ${d.url}`);
});
