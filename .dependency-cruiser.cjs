/** Layering rules (docs/architecture.md#layers), checked by `.ci/run`: each names the file that breaks it. */
const ours = "^src/";
module.exports = {
  forbidden: [
    { name: "no-cycles", severity: "error", comment: "an import cycle: break it by moving the shared piece down", from: {}, to: { circular: true } },
    {
      name: "contracts-import-nothing-of-ours",
      severity: "error",
      comment: "src/contracts is the bottom layer: every surface imports it, it imports none of them",
      from: { path: "^src/contracts/" },
      to: { path: ours, pathNot: "^src/contracts/" },
    },
    {
      name: "os-imports-nothing-of-ours",
      severity: "error",
      comment: "src/os holds system facts (files, processes, libc) with no knowledge of Signet",
      from: { path: "^src/os/" },
      to: { path: ours, pathNot: "^src/os/" },
    },
    {
      name: "config-imports-only-contracts-and-os",
      severity: "error",
      from: { path: "^src/config/" },
      to: { path: ours, pathNot: "^src/(config|contracts|os)/" },
    },
    {
      name: "client-imports-only-contracts-and-config",
      severity: "error",
      comment: "the one HTTP client is shared by the CLI, signet-mcp and hooks: it knows the API, not the daemon",
      from: { path: "^src/client/" },
      to: { path: ours, pathNot: "^src/(client|contracts|config)/" },
    },
    {
      name: "core-knows-no-surface",
      severity: "error",
      comment: "domain logic knows nothing of HTTP, MCP, the CLI or the process that runs it",
      from: { path: "^src/core/" },
      to: { path: "^src/(server|mcp|cli|control|client|harness)/" },
    },
    {
      name: "present-renders-from-contracts-and-core",
      severity: "error",
      comment: "src/present turns the API's answers into text for the CLI and MCP: it knows the answers (contracts) and core's pure text helpers, no surface",
      from: { path: "^src/present/" },
      to: { path: ours, pathNot: "^src/(present|contracts|core)/" },
    },
    {
      name: "only-the-cli-and-mcp-render",
      severity: "error",
      comment: "src/present sits below the CLI and MCP adapters and above core: core and the daemon never render an answer as text",
      from: { path: ours, pathNot: "^src/(cli|mcp|present)/" },
      to: { path: "^src/present/" },
    },
    {
      name: "search-engine-knows-no-domain",
      severity: "error",
      comment: "src/core/search is the search engine memories, sources and code share (tokenizer, keyword and vector indexes, scoring, fusion): it knows none of them",
      from: { path: "^src/core/search/" },
      to: { path: "^src/core/(memory|recall|sources|code|sessions|embed)/" },
    },
    {
      name: "core-uses-the-logger-it-is-given",
      severity: "error",
      comment: "core takes a Logger as an option (docs/architecture.md#dependencies): it imports the type, never makes one",
      from: { path: "^src/core/" },
      to: { path: "^src/logger\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "logger-imports-nothing-of-ours",
      severity: "error",
      comment: "src/logger.ts is a leaf: every layer may use it",
      from: { path: "^src/logger\\.ts$" },
      to: { path: ours },
    },
    {
      name: "consola-only-in-logger",
      severity: "error",
      comment: "one logger (src/logger.ts): everything else logs through the Logger it is given or makes there",
      from: { path: ours, pathNot: "^src/logger\\.ts$" },
      to: { path: "(^|/)node_modules/consola/" },
    },
    {
      name: "control-never-imports-server",
      severity: "error",
      comment: "src/control starts and stops the daemon's process from outside: it must not load the daemon",
      from: { path: "^src/control/" },
      to: { path: "^src/server/" },
    },
    {
      name: "cli-never-opens-the-database",
      severity: "error",
      comment: "the CLI talks to the daemon; only `signet migrate` and `signet store copy` (src/cli/migrate.ts, store.ts), with the daemon stopped, open the store",
      from: { path: "^src/cli/", pathNot: "^src/cli/(migrate|store)\\.ts$" },
      to: { path: ["^src/db/", "^bun:sqlite$"] },
    },
    {
      name: "cli-reaches-the-daemon-only-to-run-it",
      severity: "error",
      comment:
        "the CLI uses the client; only `signet daemon run` (src/cli/daemon.ts) starts the server in process, `signet index` (src/cli/code-index.ts) indexes a project in process (docs/architecture.md#code-index), and `signet store copy` (src/cli/store.ts) copies a stopped daemon's store",
      from: { path: "^src/cli/", pathNot: "^src/cli/(daemon|code-index|store)\\.ts$" },
      to: { path: "^src/(server|core)/" },
    },
    {
      name: "no-dev-dependencies-in-src",
      severity: "error",
      comment: "the binary is built from src/: a devDependency would be missing from a production install",
      from: { path: "^src/" },
      to: { dependencyTypes: ["npm-dev"] },
    },
    { name: "no-unresolvable", severity: "error", from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    // node_modules is not followed but not excluded either: excluding it drops every import of a
    // package, so the rules on packages (consola, devDependencies) could never match.
    exclude: { path: "^dist/" },
  },
};
