// A throwaway PostgreSQL cluster, for the tests of the PostgreSQL store and the store benchmark:
// Debian's server binaries (`initdb`, `postgres`), a cluster in a directory the caller gives,
// listening on a free loopback port with its socket in that directory, `fsync=off` (its data need
// not survive a power cut). The server runs in the foreground as this process's child, so stopping
// it is one signal; as root it runs as the `postgres` user (PostgreSQL refuses to run as root),
// through setpriv, which execs it.
import { chmodSync, chownSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { freePort } from "./daemon";

/** Debian's server binaries (`/usr/lib/postgresql/<version>/bin`, newest first), or ones on PATH. */
export function findPostgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  const initdb = Bun.which("initdb");
  return initdb && existsSync(join(initdb, "..", "postgres")) ? join(initdb, "..") : null;
}

export interface PostgresCluster {
  /** `postgres://` URL of the cluster's `postgres` database. */
  url: string;
  /** A fresh, empty database on the cluster; returns its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
  /** Stops the server at once, waits `downMs`, and starts it again on the same data and port. */
  restart(downMs?: number): Promise<void>;
}

const live = new Set<Subprocess>();
process.on("exit", () => {
  for (const server of live) server.kill("SIGKILL");
});

/** Starts a cluster in `dir` (an empty directory the caller removes); the caller stops it. */
export async function startPostgresCluster(dir: string): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error("PostgreSQL's server binaries are missing (apt-get install postgresql)");
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  let runAs: string[] = [];
  if (asRoot) {
    const uid = Number((await Bun.$`id -u postgres`.text()).trim());
    const gid = Number((await Bun.$`id -g postgres`.text()).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
    runAs = ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"];
  }
  const init = Bun.spawnSync([...runAs, join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  /** Runs the server on the cluster's data and port, and waits until it answers. */
  const run = async (): Promise<Subprocess> => {
    const server = Bun.spawn(
      [
        ...runAs,
        join(bin, "postgres"),
        "-D", data,
        "-p", String(port),
        "-k", dir,
        "-c", "listen_addresses=127.0.0.1",
        "-c", "fsync=off",
        "-c", "full_page_writes=off",
        // A test file's clients (one pool per "daemon", up to 10 connections each) stay open until
        // its end: the embedding store's file holds ~170 before its last test.
        "-c", "max_connections=400",
      ],
      { stdout: "ignore", stderr: "pipe" },
    );
    live.add(server);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const probe = new SQL(url, { max: 1, connectionTimeout: 2 });
      try {
        await probe`SELECT 1`;
        return server;
      } catch (error) {
        if (server.exitCode !== null || Date.now() > deadline) {
          server.kill("SIGKILL");
          live.delete(server);
          throw new Error(`PostgreSQL did not start: ${String(error)}\n${await new Response(server.stderr as ReadableStream).text()}`);
        }
        await Bun.sleep(50);
      } finally {
        await probe.close();
      }
    }
  };
  const halt = async (server: Subprocess, signal: "SIGQUIT") => {
    server.kill(signal);
    await server.exited;
    live.delete(server);
  };
  let server = await run();
  let databases = 0;
  return {
    url,
    async createDatabase() {
      const name = `signet_test_${++databases}`;
      const admin = new SQL(url, { max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.close();
      }
      return url.replace(/\/postgres$/, `/${name}`);
    },
    async stop() {
      // SIGQUIT: immediate shutdown; the cluster is thrown away with its directory.
      await halt(server, "SIGQUIT");
    },
    async restart(downMs = 0) {
      // SIGQUIT, an immediate shutdown without a checkpoint: the next start recovers from the write-ahead log.
      await halt(server, "SIGQUIT");
      await Bun.sleep(downMs);
      server = await run();
    },
  };
}
