// What a short command evaluates when it starts: the binary is built with code splitting
// (scripts/build.ts), so a chunk's static imports run when it loads and its dynamic imports only
// when called. The commands run most often must not reach zod through a static import: building
// zod's schemas cost `signet list` and `signet mcp <server> <tool>` about a third of their start
// (docs/benchmarks.md#cli-start). The configuration's schema is loaded lazily, on a cache miss.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp-cleanup";

const root = join(import.meta.dir, "..", "..");

/**
 * The modules each entry evaluates when it loads: its chunk and every chunk it imports statically
 * (the bundle's `// path` comments), and the runtime's modules those import (`node:util`).
 */
async function staticModules(entries: string[]): Promise<Map<string, string[]>> {
  const outdir = tempDir();
  const built = await Bun.build({
    entrypoints: entries.map((e) => join(root, e)),
    outdir,
    target: "bun",
    format: "esm",
    splitting: true,
    naming: { entry: "[dir]/[name].[ext]", chunk: "[name]-[hash].[ext]" },
    root,
  });
  expect(built.success).toBe(true);
  const text = (file: string) => readFileSync(join(outdir, file), "utf8");
  const closure = (file: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(file)) return seen;
    seen.add(file);
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
    // `import ... from "./x.js"` and `import "./x.js"`, not `import("./x.js")`.
    for (const m of text(file).matchAll(/\bimport\s*(?:[^"'()]*?\bfrom\s*)?["']([^"']+\.js)["']/g)) {
      const target = join(dir, m[1]!).replace(/^\.\//, "");
      closure(target, seen);
    }
    return seen;
  };
  const result = new Map<string, string[]>();
  for (const entry of entries) {
    const file = entry.replace(/\.ts$/, ".js");
    const bundled = (f: string) => [...text(f).matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]!);
    // What is left as an import of a bare name is the runtime's; the build writes node:fs as "fs".
    const builtins = (f: string) => [...text(f).matchAll(/\bfrom\s*["']([a-z][a-z_:/]*)["']/g)].map((m) => (m[1]!.includes(":") ? m[1]! : `node:${m[1]}`));
    result.set(entry, [...new Set([...closure(file)].flatMap((f) => [...bundled(f), ...builtins(f)]))]);
  }
  return result;
}

test("the memory commands, `signet recall`, `code`, `source`, `mcp` (with `mcp analytics`), `agents`, `message`, `token` and `secret` load no zod and no schemas when they start", async () => {
  const entries = [
    "src/cli/memory.ts",
    "src/cli/recall.ts",
    "src/cli/code.ts",
    "src/cli/source.ts",
    "src/cli/mcp/index.ts",
    "src/cli/mcp/call.ts",
    "src/cli/agents.ts",
    "src/cli/message.ts",
    "src/cli/token.ts",
    "src/cli/secret.ts",
    "src/cli/mcp-analytics.ts",
    "src/cli/transfer.ts",
  ];
  const modules = await staticModules(entries);
  const zod = (entry: string) => modules.get(entry)!.filter((m) => m.startsWith("node_modules/zod/"));
  // The check sees what it should: `signet import` checks each line of its file with the export's schemas.
  expect(zod("src/cli/transfer.ts").length).toBeGreaterThan(0);
  expect(modules.get("src/cli/memory.ts")).toContain("src/cli/flags.ts");
  for (const entry of entries.slice(0, -1)) expect({ entry, zod: zod(entry) }).toEqual({ entry, zod: [] });
});

test("signet-mcp answers initialize and tools/list before it loads the MCP SDK, zod or the tool table", async () => {
  const modules = (await staticModules(["src/mcp/stdio.ts"])).get("src/mcp/stdio.ts")!;
  const heavy = modules.filter((m) => m.startsWith("node_modules/zod/") || m.startsWith("node_modules/@modelcontextprotocol/") || m === "src/mcp/tools.ts");
  expect(modules).toContain("src/mcp/initialize-answer.ts");
  expect(modules).toContain("src/mcp/tools-list-answer.ts");
  expect(heavy).toEqual([]);
});

test("the command tree, a hook and a bridge call load neither citty's runtime nor node:util", async () => {
  const entries = ["src/cli/index.ts", "src/cli/memory.ts", "src/cli/hook.ts", "src/cli/mcp/call.ts", "src/cli/mcp/index.ts"];
  const modules = await staticModules(entries);
  // The check sees what it should: every one of them reads the configuration through node:fs.
  for (const entry of entries.slice(1, 4)) expect(modules.get(entry)).toContain("node:fs");
  for (const entry of entries) {
    const heavy = modules.get(entry)!.filter((m) => m.startsWith("node_modules/citty/") || m === "node:util");
    expect({ entry, heavy }).toEqual({ entry, heavy: [] });
  }
});

test("the memory commands, `signet recall`, a bridge call and the hook load no node:os when they start", async () => {
  // node:os cost a bridge call about a millisecond of its start (docs/benchmarks.md#cli-start).
  const entries = ["src/cli/memory.ts", "src/cli/recall.ts", "src/cli/mcp/call.ts", "src/cli/hook.ts", "src/cli/doctor.ts"];
  const modules = await staticModules(entries);
  // The check sees the runtime's modules: `signet doctor` reports on the machine through node:os.
  expect(modules.get("src/cli/doctor.ts")).toContain("node:os");
  for (const entry of entries.slice(0, -1)) expect({ entry, os: modules.get(entry)!.includes("node:os") }).toEqual({ entry, os: false });
});
