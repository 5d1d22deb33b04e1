// `signet self-install`: put this binary on PATH with its signet-mcp link.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { chmodSync, copyFileSync, mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { isCompiled } from "../self";
import { UsageError } from "./errors";
import { emit, outputArgs } from "./output";

export const selfInstall = defineCommand({
  meta: { name: "self-install", description: COMMAND_DESCRIPTIONS["self-install"] },
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

