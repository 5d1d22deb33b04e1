// src/control/autostart.ts: when a client that finds no daemon may start one, and the refusals
// that say why not. Starting one is covered end to end (test/e2e/autostart.test.ts); nothing here
// connects anywhere or starts a process: each refusal comes before either.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonNotStartedError } from "../../src/client/client";
import { loadConfig } from "../../src/config/load";
import { autostarter } from "../../src/control/autostart";
import { recordingLogger } from "../helpers/log";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A HOME with no store in it; the config of a client run there with `env`. */
function client(env: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), "signet-autostart-"));
  roots.push(home);
  const fullEnv = { HOME: home, ...env };
  const { log, lines } = recordingLogger();
  const config = loadConfig({ env: fullEnv });
  return { home, config, lines, start: autostarter(config, log, fullEnv) };
}

async function refusal(start: (() => Promise<boolean>) | undefined): Promise<DaemonNotStartedError> {
  expect(start).toBeDefined();
  try {
    await start!();
  } catch (err) {
    expect(err).toBeInstanceOf(DaemonNotStartedError);
    return err as DaemonNotStartedError;
  }
  throw new Error("expected the autostart to be refused, but it went ahead");
}

describe("autostart", () => {
  test("off (daemon.autostart false): no hook, so the client says how to start the daemon", () => {
    expect(client({ SIGNET_AUTOSTART: "false" }).start).toBeUndefined();
  });

  test("refuses to create a store nobody chose: the default data directory, absent, with SIGNET_PATH unset", async () => {
    const c = client();
    const err = await refusal(c.start);
    const dataDir = join(c.home, ".agents");
    expect(err.message).toBe(
      `no Signet daemon answers at http://127.0.0.1:3850, and none was started: there is no Signet store at ${dataDir} and SIGNET_PATH is not set, ` +
        "so starting one would create a store nobody chose. Run `signet daemon start` once to create it there, or set SIGNET_PATH to your data directory",
    );
    expect(existsSync(dataDir)).toBe(false);
    expect(c.lines).toEqual([]);
  });

  test("a URL whose host is not this machine is refused, naming what to do", async () => {
    const c = client({ SIGNET_PATH: "/nonexistent/chosen", SIGNET_DAEMON_URL: "http://10.0.0.5:3850" });
    const err = await refusal(c.start);
    expect(err.message).toStartWith("no Signet daemon answers at http://10.0.0.5:3850, and none was started: 10.0.0.5 is not this machine");
    expect(err.message).toContain("SIGNET_DAEMON_URL");
    expect(existsSync("/nonexistent/chosen")).toBe(false);
  });

  test("a loopback URL the daemon would not listen on is refused: another address than daemon.bind, or https", async () => {
    const other = await refusal(client({ SIGNET_PATH: "/nonexistent/chosen", SIGNET_DAEMON_URL: "http://127.0.0.2:4000" }).start);
    expect(other.message).toContain(
      "a daemon started here listens on 127.0.0.1 (daemon.bind, SIGNET_BIND), not on 127.0.0.2: set SIGNET_DAEMON_URL to http://127.0.0.1:4000, or daemon.bind to 127.0.0.2",
    );
    const v6 = await refusal(client({ SIGNET_PATH: "/nonexistent/chosen", SIGNET_DAEMON_URL: "http://[::1]:4000" }).start);
    expect(v6.message).toContain("not on ::1");
    const tls = await refusal(client({ SIGNET_PATH: "/nonexistent/chosen", SIGNET_DAEMON_URL: "https://127.0.0.1:4000" }).start);
    expect(tls.message).toContain("the daemon serves plain http: use http://127.0.0.1:4000");
  });

  test("localhost and the bind address are served: what stops these is only the missing store", async () => {
    const served: Record<string, string>[] = [
      { SIGNET_DAEMON_URL: "http://localhost:4000" },
      { SIGNET_DAEMON_URL: "http://[::1]:4000", SIGNET_BIND: "::1" },
      { SIGNET_BIND: "127.0.0.3" },
    ];
    for (const env of served) {
      const err = await refusal(client(env).start);
      expect({ env, message: err.message }).toEqual({ env, message: expect.stringContaining("there is no Signet store at") });
    }
  });
});
