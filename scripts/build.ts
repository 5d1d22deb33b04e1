// Builds the one executable: dist/signet, plus dist/signet-mcp (a link to it).
//   bun scripts/build.ts              host binary
//   bun scripts/build.ts --release    also linux-x64/arm64 and darwin-x64/arm64 into dist/release/
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");
const RELEASE_TARGETS = ["bun-linux-x64", "bun-linux-arm64", "bun-darwin-x64", "bun-darwin-arm64"] as const;

async function compile(outfile: string, target?: string): Promise<void> {
  // The code index's parsing threads, document sources' PDF thread and the WAL checkpoint thread run
  // entrypoints of their own (src/core/code/parse-pool.ts, src/core/sources/pdf.ts, src/db/checkpointer.ts); entries are named flat so each worker
  // sits beside the main one, where `new URL("./parse-worker.ts", import.meta.url)` finds it inside
  // the binary.
  const workers = ["src/core/code/parse-worker.ts", "src/core/sources/pdf-worker.ts", "src/db/checkpoint-worker.ts"].map((w) => join(root, w));
  // --splitting: each dynamic import() becomes a chunk of its own in the binary's file system,
  // loaded when it runs, so `signet --version` or a hook does not load (and run) the daemon's code.
  // --bytecode: the chunks are stored compiled, which saves their parse at every start.
  const args = ["build", join(root, "src/main.ts"), ...workers, "--entry-naming=[name].[ext]", "--splitting", "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", outfile];
  if (target) args.push(`--target=${target}`);
  const proc = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error(`bun build failed for ${target ?? "host"}`);
}

mkdirSync(dist, { recursive: true });
const started = performance.now();
const binary = join(dist, "signet");
await compile(binary);
const link = join(dist, "signet-mcp");
if (existsSync(link)) rmSync(link);
symlinkSync("signet", link);
console.error(`built ${binary} and ${link} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

if (process.argv.includes("--release")) {
  const releaseDir = join(dist, "release");
  mkdirSync(releaseDir, { recursive: true });
  for (const target of RELEASE_TARGETS) {
    const out = join(releaseDir, `signet-${target.replace(/^bun-/, "")}`);
    await compile(out, target);
    console.error(`built ${out}`);
  }
}
