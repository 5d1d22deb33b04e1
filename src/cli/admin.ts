// Maintenance commands that work on the data directory itself: migrate and self-install.
import { defineCommand } from "citty";
import { chmodSync, copyFileSync, mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { migrate as runMigrations } from "../db/migrate";
import { databasePath, openDatabase } from "../db/open";
import { DaemonLock, DaemonRunningError } from "../server/lock";
import { isCompiled } from "../self";
import { configFromFlags } from "./context";
import { EXIT, ExitError, UsageError } from "./errors";
import { emit, outputArgs } from "./output";

export const migrate = defineCommand({
  meta: { name: "migrate", description: "Apply database migrations with the daemon stopped" },
  args: outputArgs,
  async run({ args }) {
    const config = configFromFlags({});
    let lock: DaemonLock;
    try {
      lock = DaemonLock.acquire(config.dataDir);
    } catch (err) {
      if (err instanceof DaemonRunningError) {
        throw new ExitError(EXIT.failed, `${err.message}; the daemon migrates at start, or stop it before \`signet migrate\``);
      }
      throw err;
    }
    try {
      const db = openDatabase(databasePath(config.dataDir));
      try {
        const result = runMigrations(db);
        emit(result, args, (r) =>
          r.applied.length ? `applied ${r.applied.join(", ")}; schema version ${r.version}` : `up to date at schema version ${r.version}`,
        );
      } finally {
        db.close();
      }
    } finally {
      lock.release();
    }
  },
});

export const selfInstall = defineCommand({
  meta: { name: "self-install", description: "Copy this binary to PREFIX/bin as signet, with its signet-mcp link" },
  args: {
    prefix: { type: "string", description: "Install prefix (default ~/.local); the binary goes to PREFIX/bin" },
    ...outputArgs,
  },
  async run({ args }) {
    if (!isCompiled()) throw new UsageError("self-install needs the compiled binary: run `npm run build`, then `dist/signet self-install`");
    const prefix = resolve(args.prefix ?? join(process.env.HOME || homedir(), ".local"));
    const bin = join(prefix, "bin");
    mkdirSync(bin, { recursive: true });
    const target = join(bin, "signet");
    const link = join(bin, "signet-mcp");
    // Copy beside the target, then rename: replacing a running binary in place would corrupt it.
    const tmp = `${target}.${process.pid}.tmp`;
    copyFileSync(process.execPath, tmp);
    chmodSync(tmp, 0o755);
    renameSync(tmp, target);
    rmSync(link, { force: true });
    symlinkSync("signet", link);
    const onPath = (process.env.PATH ?? "").split(":").includes(bin);
    emit({ installed: target, link, onPath }, args, (r) =>
      `installed ${r.installed} and ${r.link}${r.onPath ? "" : `\nadd ${bin} to your PATH to use them`}`,
    );
  },
});

