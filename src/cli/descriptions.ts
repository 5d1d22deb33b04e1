// What each of `signet`'s commands does, declared once: each command's own help shows its line, and
// `signet --help` lists them from here without loading any command (loading them all for their
// descriptions cost the root help ~80 ms of JavaScript, zod and the daemon's code among it).
export const COMMAND_DESCRIPTIONS = {
  daemon: "Run, start, stop and inspect the Signet daemon",
  remember: "Store a memory (content as an argument, or - to read stdin)",
  recall: "Search memories: keyword + vector, fused and ranked",
  get: "Show one memory with its version history",
  list: "List memories, newest first",
  modify: "Change a memory; the old version stays in its history",
  forget: "Forget a memory (soft delete; recoverable for 30 days)",
  recover: "Undo a forget (within 30 days)",
  history: "Show every version of a memory, with who changed it and why",
  export: "Export every agent's memories with their version history as JSON lines. A header line comes first, then one memory a line, to stdout or to a new file (-o).",
  import: "Import memories from a signet export, server-memory's memory.jsonl or a directory of basic-memory notes. A signet export keeps ids, versions and history. Importing again adds nothing; a memory stored differently under the same id is reported as a conflict and left alone (exit 1).",
  backup: "Copy the live database into a new file. The copy is consistent while the daemon runs on; an existing file is never overwritten.",
  source: "Document sources: add files and directories, keep them in sync, search their chunks",
  embed: "Embeddings: status, and re-embedding everything after a model or provider change",
  graph: "The knowledge graph derived from the agent's memories: entities, their claims and relations",
  dream: "Consolidate the agent's graph now: merge entities that are one, supersede claims newer evidence replaced, relate entities mentioned together, queue memories due for review. Runs in the background too; needs the owner's admin token",
  migrate: "Apply database migrations with the daemon stopped",
  store: "The daemon's store: copy it into PostgreSQL or back into a SQLite file",
  secret: "Manage the secrets agents can use through secret_exec without seeing them: set, list, rm. Values are encrypted at rest in $SIGNET_PATH/.secrets/.",
  agents: "List the agent sessions present now (other agents' unless --all)",
  message: "Send, read and watch messages between agents",
  "self-install": "Copy this binary to PREFIX/bin as signet, with its signet-mcp link",
  token: "Create, list and revoke API tokens for team and hybrid modes",
  setup: "Register signet-mcp and Signet's lifecycle hooks in a harness's config (claude-code, codex, opencode)",
  install: "Alias of `signet setup`: register signet-mcp and Signet's lifecycle hooks in a harness's config",
  hook: "What a harness's lifecycle hook runs: reads the harness's hook JSON on stdin, calls the daemon's hook and prints what the harness expects. It never blocks the harness: with the daemon down it prints nothing and exits 0. `signet setup` installs it; see docs/hooks.md",
  mcp: "Installed MCP servers from the terminal: `signet mcp <server> list-tools`, `signet mcp <server> <tool> --param k=v`, `signet mcp <server> [<tool>] --help`",
  doctor: "Check the installation: the daemon, the store, the embedder, file modes, each harness's registration, signet-mcp on PATH and secret exec's sandbox. Each harness's registered hooks and MCP server are run for real, as the harness runs them (dry-run sessions, removed afterwards; one read-only tool call), and its entries are held against the auth mode. Each problem comes with its fix; exit 1 when there is one. Never starts a daemon or changes a config.",
  index: "Index a project's code (TS/TSX, JS, Python, Go, Rust) for signet code and the signet_code_* tools of sessions working in it",
  code: "Ask the code index of the current directory's project (made by `signet index <path>`)",
  completion: "Print a completion script for bash, zsh or fish. Load it with `eval \"$(signet completion bash)\"` in ~/.bashrc, `source <(signet completion zsh)` in ~/.zshrc (after compinit), or `signet completion fish | source` in fish's config.fish.",
} as const;

export type CommandName = keyof typeof COMMAND_DESCRIPTIONS;
