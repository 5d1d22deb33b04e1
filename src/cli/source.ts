// `signet source add|list|rm|sync|search` (docs/api.md#sources). The CLI sends absolute paths; the
// daemon reads the files as the owner, so add, sync and rm carry the owner's admin token, which the
// client reads from the data directory itself. A progress bar shows on a terminal's stderr (progress.ts).
// The daemon checks each request with the operation's schema and its refusal names the field (exit
// 2); checking it here first would load zod at every command (docs/benchmarks.md#cli-start).
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { SignetClient } from "../client/client";
import { defined } from "../contracts/parse";
import type { IngestReport, SourceSearchResponse, SourceSummary } from "../contracts/sources";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { ExitError, EXIT, UsageError } from "./errors";
import { num } from "./flags";
import { emit } from "./output";
import { progressBar } from "./progress";
import { textTable } from "./table";
import { terminalText } from "./terminal-text";

/** Skipped files listed on a terminal; --json lists them all. */
const SHOWN_SKIPPED = 10;
type Progress = { done: number; total: number };

/**
 * Runs an add or sync; on a terminal the daemon streams its progress to a bar on stderr (elsewhere
 * nothing is streamed, so pipes get the plain answer).
 */
async function withProgress<T>(label: string, job: (onProgress?: (p: Progress) => void) => Promise<T>): Promise<T> {
  if (!process.stderr.isTTY) return job();
  const bar = progressBar(label, "files");
  try {
    return await job((p) => bar.update(p.done, p.total));
  } finally {
    bar.end();
  }
}

function reportText(verb: string, r: IngestReport): string {
  const lines = [
    `${verb} ${oneLine(r.source.path)} (source ${r.source.id}): ${r.scanned} files, ${r.parsed} parsed, ${r.unchanged} unchanged, ` +
      `${r.removed} removed; ${r.chunks} chunks written, ${r.source.chunks} in all (${r.tookMs} ms)`,
  ];
  if (r.skipped.length > 0) {
    lines.push(`skipped ${r.skipped.length}:`);
    for (const s of r.skipped.slice(0, SHOWN_SKIPPED)) lines.push(`  ${oneLine(s.path)}: ${s.reason}`);
    if (r.skipped.length > SHOWN_SKIPPED) lines.push(`  ... and ${r.skipped.length - SHOWN_SKIPPED} more (--json lists them all)`);
  }
  return lines.join("\n");
}

function listText(sources: SourceSummary[]): string {
  if (sources.length === 0) return "no sources: add one with `signet source add <file|dir>`";
  return textTable(
    ["id", "path", "glob", "files", "chunks", "embedded", "synced"],
    sources.map((s) => [String(s.id), oneLine(s.path), s.glob ?? "", String(s.files), String(s.chunks), String(s.embedded), s.syncedAt]),
    ["r", "l", "l", "r", "r", "r", "l"],
  );
}

/**
 * A source named by its id or its path (resolved from the current directory). The daemon keeps a
 * source under its path with links resolved, so a path through a link names it too. A number that
 * is both a source's id and another source's path is refused: `./1` says the path, the other
 * source's path says that one.
 */
async function sourceId(client: SignetClient, given: string): Promise<number> {
  const path = resolve(given);
  const real = realOrNull(path);
  const sources = (await client.sources.list()).sources;
  const byPath = sources.find((s) => s.path === path || s.path === real);
  if (/^\d+$/.test(given)) {
    const byId = sources.find((s) => s.id === Number(given));
    if (byId && byPath && byId.id !== byPath.id) {
      throw new UsageError(
        `${given} is both the id of source ${byId.id} (${oneLine(byId.path)}) and the path of source ${byPath.id} (${oneLine(byPath.path)}): ` +
          `write ./${given} for the path, or name source ${byId.id} by its path`,
      );
    }
    // No source has that id but one has that path: the word can only mean the path.
    if (byId || !byPath) return Number(given);
  }
  if (!byPath) throw new ExitError(EXIT.failed, `no source for ${path}: \`signet source list\` shows them`);
  return byPath.id;
}

/** `path` with its links resolved; null when it cannot be (gone from disk, say). */
function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

const add = defineCommand({
  meta: {
    name: "add",
    description:
      "Add a file or directory as a document source: Markdown, text, code and PDF files are chunked and keyword-indexed at once, embedded in the background. Adding it again syncs it.",
  },
  args: {
    path: { type: "positional", text: true, description: "The file or directory (a relative path is taken from the current directory)", required: true },
    glob: { type: "string", description: 'Only files of the directory matching this pattern, relative to it (e.g. "**/*.md")' },
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({ path: resolve(args.path), glob: args.glob });
    const client = clientFor(configFromFlags(args));
    const r = await withProgress("ingesting", (onProgress) => client.sources.add(body, onProgress));
    emit(r, args, (x) => reportText(x.created ? "added" : "synced", x));
  },
});

const list = defineCommand({
  meta: { name: "list", description: "List the document sources with their files, chunks and how many are embedded" },
  args: { ...clientArgs },
  async run({ args }) {
    const r = await clientFor(configFromFlags(args)).sources.list();
    emit(r, args, (x) => listText(x.sources));
  },
});

const rm = defineCommand({
  meta: { name: "rm", description: "Remove a document source with its chunks (the files on disk are not touched)" },
  args: {
    source: { type: "positional", text: true, description: "The source's id or path", required: true },
    ...clientArgs,
  },
  async run({ args }) {
    const client = clientFor(configFromFlags(args));
    const r = await client.sources.remove(String(await sourceId(client, args.source)));
    emit(r, args, (x) => `removed source ${x.removed.id} ${oneLine(x.removed.path)} (${x.removed.files} files, ${x.removed.chunks} chunks)`);
  },
});

const sync = defineCommand({
  meta: {
    name: "sync",
    description: "Check every source (or one) again: changed and new files are parsed, deleted ones leave the index, unchanged ones are skipped",
  },
  args: {
    source: { type: "positional", text: true, description: "One source's id or path (default: all)", required: false },
    ...clientArgs,
  },
  async run({ args }) {
    const client = clientFor(configFromFlags(args));
    const id = args.source === undefined ? undefined : await sourceId(client, args.source);
    const r = await withProgress("syncing", (onProgress) => client.sources.sync(defined({ id }), onProgress));
    emit(r, args, (x) => (x.reports.length === 0 ? "no sources to sync" : x.reports.map((rep) => reportText("synced", rep)).join("\n")));
  },
});

function searchText(query: string, r: SourceSearchResponse): string {
  if (r.results.length === 0) return `no source chunk matches "${query}"`;
  return r.results
    .map((c) => `${oneLine(c.path)}:${c.startLine}-${c.endLine}  (${c.score})${c.heading ? `  ${oneLine(c.heading)}` : ""}\n${indent(c.content)}`)
    .join("\n\n");
}

const indent = (text: string) => terminalText(text).replace(/^/gm, "    ");
/** A path or heading on one line: a newline in a file name must not break the `path:start-end` form. */
const oneLine = (text: string) => terminalText(text, { oneLine: true });

const search = defineCommand({
  meta: { name: "search", description: "Search the chunks of the document sources (keyword + vector where embedded)" },
  args: {
    query: { type: "positional", text: true, description: "What to look for, in plain words", required: true },
    limit: { type: "string", description: "How many chunks (default 10, max 100)" },
    path: { type: "string", description: "Only files whose path contains this text" },
    "min-score": { type: "string", description: "Only chunks scoring at least this (0-1; default 0.2)" },
    ...clientArgs,
  },
  async run({ args }) {
    const body = defined({ query: args.query, limit: num("limit", args.limit), path: args.path, minScore: num("min-score", args["min-score"]) });
    const r = await clientFor(configFromFlags(args)).sources.search(body);
    emit(r, args, (x) => searchText(args.query, x));
  },
});

export default defineCommand({
  meta: { name: "source", description: COMMAND_DESCRIPTIONS.source },
  args: { ...clientArgs },
  subCommands: { add, list, rm, sync, search },
  async run({ args }) {
    const r = await clientFor(configFromFlags(args)).sources.list();
    emit(r, args, (x) => `${listText(x.sources)}\n\ncommands: signet source add <file|dir> [--glob PATTERN] | list | rm <id|path> | sync [id|path] | search <query>`);
  },
});
