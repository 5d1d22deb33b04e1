// `signet index <path>` (docs/code.md#indexing): indexes a project in this process, records it among
// the indexed projects and keeps its index out of git. It runs here, not in the daemon: parsing is
// CPU work that would stall the daemon's event loop, and a terminal shows its progress directly
// (docs/architecture.md#code-index). The daemon reads the list on its next code request.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { codeProjectsPath } from "../config/paths";
import { excludeIndexFromGit, type GitExclude } from "../core/code/git-exclude";
import { indexProject, type IndexProgress, type IndexRun } from "../core/code/indexer";
import { recordIndexedProject } from "../core/code/projects";
import { configFromFlags } from "./context";
import { UsageError } from "./errors";
import { emit, outputArgs } from "./output";

const BAR_WIDTH = 30;

/** A progress bar on stderr, redrawn at most every 100 ms; nothing when stderr is not a terminal. */
function progressBar(): ((p: IndexProgress) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let last = 0;
  return (p) => {
    const now = performance.now();
    const done = p.done === p.total;
    if (!done && now - last < 100) return;
    last = now;
    const filled = p.total === 0 ? BAR_WIDTH : Math.round((p.done / p.total) * BAR_WIDTH);
    const name = p.path.length > 40 ? `…${p.path.slice(-39)}` : p.path;
    process.stderr.write(`\r\x1b[K[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${p.done}/${p.total} ${name}`);
    if (done) process.stderr.write("\r\x1b[K");
  };
}

function runText(run: IndexRun & { gitExclude: GitExclude | null }): string {
  const rate = run.tookMs > 0 ? Math.round((run.parsed.length / run.tookMs) * 1000) : 0;
  const lines = [
    `Indexed ${run.project}: ${run.files} code files (${run.parsed.length} parsed, ${run.unchanged} unchanged, ${run.removed.length} removed, ${run.failed.length} failed) in ${run.tookMs} ms${run.parsed.length > 0 ? `, ${rate} files/s` : ""}`,
    `${run.symbols} symbols, ${run.edges} edges. signet code and the signet_code_* tools of sessions in this folder answer from it.`,
  ];
  const exclude = run.gitExclude;
  if (exclude?.added) lines.push(`Added .graphiq/ to ${exclude.path}: git leaves the index out.`);
  if (exclude?.problem) lines.push(`Could not add .graphiq/ to ${exclude.path} (${exclude.problem}): add it there or to .gitignore yourself.`);
  for (const f of run.failed) lines.push(`  not indexed: ${f.path}: ${f.reason}`);
  return lines.join("\n");
}

export const indexCommand = defineCommand({
  meta: {
    name: "index",
    description: COMMAND_DESCRIPTIONS.index,
  },
  args: {
    path: { type: "positional", text: true, description: "The project's folder (its index goes to <path>/.graphiq/)", required: true },
    ...outputArgs,
  },
  async run({ args }) {
    let project: string;
    try {
      project = realpathSync(resolve(args.path));
    } catch {
      throw new UsageError(`${args.path}: no such folder`);
    }
    if (!statSync(project).isDirectory()) throw new UsageError(`${args.path} is not a folder`);
    const config = configFromFlags({});
    const run = await indexProject(project, progressBar());
    recordIndexedProject(codeProjectsPath(config.dataDir), { project, indexedAt: run.startedAt });
    emit({ ...run, gitExclude: excludeIndexFromGit(project) }, args, runText);
  },
});
