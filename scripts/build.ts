// Builds the one executable: dist/signet, plus dist/signet-mcp (a link to it).
//   bun scripts/build.ts              host binary
//   bun scripts/build.ts --release    also linux-x64/arm64 and darwin-x64/arm64 into dist/release/
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { BunPlugin } from "bun";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");
const RELEASE_TARGETS: Bun.Build.CompileTarget[] = ["bun-linux-x64", "bun-linux-arm64", "bun-darwin-x64", "bun-darwin-arm64"];

/**
 * The large assets imported `with { type: "file" }` (tree-sitter's runtime and grammars, the builtin
 * model's weights and vocabulary) are stored gzipped in the executable: 5.5 MB less, and
 * readEmbeddedFile() (src/os/embedded-file.ts) inflates them when they are read, once per process.
 */
const COMPRESSED_ASSETS = /(\.wasm|\.q8|model-embeddings-en\/dist\/vocab\.json|unpdf\/dist\/pdfjs\.mjs)$/;
const compressAssets: BunPlugin = {
  name: "compress-embedded-assets",
  setup(build) {
    build.onLoad({ filter: COMPRESSED_ASSETS }, async ({ path }) => ({
      contents: Bun.gzipSync(await Bun.file(path).bytes(), { level: 9 }),
      loader: "file",
    }));
  },
};

/**
 * pdf.js as unpdf imports it is left out of the bundle: the PDF thread embeds it as a gzipped file and
 * gives unpdf that copy (src/core/sources/pdf-worker.ts), 1.6 MB of JavaScript the binary no longer
 * carries as source.
 */
const unpdfWithoutPdfjs: BunPlugin = {
  name: "unpdf-without-pdfjs",
  setup(build) {
    build.onResolve({ filter: /^unpdf\/pdfjs$/ }, (args) => (args.importer.includes("/node_modules/unpdf/") ? { path: args.path, external: true } : undefined));
  },
};

async function compile(outfile: string, target?: Bun.Build.CompileTarget): Promise<void> {
  // The code index's parsing threads, document sources' PDF thread and the WAL checkpoint thread run
  // entrypoints of their own (src/core/code/parse-pool.ts, src/core/sources/pdf.ts, src/db/checkpointer.ts); entries are named flat so each worker
  // sits beside the main one, where `new URL("./parse-worker.ts", import.meta.url)` finds it inside
  // the binary.
  const workers = ["src/core/code/parse-worker.ts", "src/core/sources/pdf-worker.ts", "src/db/checkpoint-worker.ts"];
  const result = await Bun.build({
    entrypoints: ["src/main.ts", ...workers].map((file) => join(root, file)),
    naming: { entry: "[name].[ext]", chunk: "[name]-[hash].[ext]" },
    // Each dynamic import() becomes a chunk of its own in the binary's file system, loaded when it
    // runs, so `signet --version` or a hook does not load (and run) the daemon's code. No
    // `bytecode`: it makes the binary 8.2 MB larger, past the 120 MB budget, for a fifth of
    // `signet list`'s start and a tenth of a hook's (docs/benchmarks.md#binary-size).
    splitting: true,
    minify: true,
    format: "esm",
    target: "bun",
    plugins: [compressAssets, unpdfWithoutPdfjs],
    compile: target ? { target, outfile } : { outfile },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error(`bun build failed for ${target ?? "host"}`);
  }
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
