// `signet export`, `signet import` and `signet backup` (docs/api.md#export-import-and-backup). The CLI
// reads and writes the files; the daemon reads and writes the database, with the owner's admin token.
import { defineCommand } from "./command";
import { COMMAND_DESCRIPTIONS } from "./descriptions";
import { accessSync, constants, createReadStream, existsSync, lstatSync, readFileSync, readdirSync, rmSync, statSync, type Stats } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import type { z } from "zod";
import { ApiError, type SignetClient } from "../client/client";
import { parseInput } from "../contracts/parse";
import type { BodyOf } from "../contracts/operation";
import {
  ExportHeaderSchema,
  ExportRecordSchema,
  IMPORT_FORMATS,
  NOTE_MAX_CHARS,
  ServerMemoryItemSchema,
  TRANSFER_API,
  type ImportFormat,
  type ImportResponse,
} from "../contracts/transfer";
import { newFilePlaceProblem } from "../os/new-file";
import { openOwnerOnly } from "../os/owner-only-files";
import { clientArgs, clientFor, configFromFlags } from "./context";
import { EXIT, ExitError, exitCodeOf, UsageError } from "./errors";
import { emit, outputArgs } from "./output";

/** Lines of an export written before the output is flushed: bounded memory whatever the export's size. */
const FLUSH_EVERY = 500;
/**
 * Items a request carries at most (the API takes up to 1,000): a batch is written in one go, and 250
 * memories take the daemon about a tenth of a second, short enough for agents' requests in between.
 */
const BATCH = 250;
/** Outcomes of each kind shown on a terminal; --json lists them all. */
const SHOWN = 20;

/**
 * The owner's operations over the whole store take no `--agent`: an export holds every agent's
 * memories and a backup the whole database (docs/api.md#export-import-and-backup), whoever asks.
 */
const ownerArgs = { ...outputArgs, url: clientArgs.url } as const;

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException)?.code;

/**
 * Why a new file cannot be created at `path`, in words, from the error of making it or of looking at
 * it or its directory; undefined for an error with no such reading.
 */
function newFileRefusal(path: string, what: string, err: unknown): UsageError | undefined {
  const place = newFilePlaceProblem(path, errnoOf(err));
  if (place) return new UsageError(place);
  switch (errnoOf(err)) {
    case "EEXIST":
      return new UsageError(`${path} already exists: ${what} never overwrites a file, give a new file name`);
    case "ELOOP":
      return new UsageError(`${path} is a symbolic link: refusing to write through a symbolic link, give a new file name`);
    case "EISDIR":
      return new UsageError(`${path} is a directory: give a file name`);
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new UsageError(`cannot create ${path}: you may not write in ${dirname(path)} (${errnoOf(err)})`);
    default:
      return undefined;
  }
}

/**
 * The absolute path of the new file an export is written to, checked before the daemon is asked: a
 * name that is empty, a directory, anything already there (a link too: a new file is never written
 * through one) or a directory that is missing or not writable is refused in words (exit 2).
 */
function newFilePath(given: string, what: string): string {
  if (given.trim() === "") throw new UsageError(`give a file name: ${what} is written to a new file`);
  const path = resolve(given);
  let existing: Stats | undefined;
  try {
    existing = lstatSync(path);
  } catch (err) {
    if (errnoOf(err) !== "ENOENT" && errnoOf(err) !== "ENOTDIR") throw newFileRefusal(path, what, err) ?? err;
  }
  if (existing?.isSymbolicLink()) throw newFileRefusal(path, what, { code: "ELOOP" })!;
  if (existing?.isDirectory()) throw newFileRefusal(path, what, { code: "EISDIR" })!;
  if (existing) throw newFileRefusal(path, what, { code: "EEXIST" })!;
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error(), { code: "ENOTDIR" });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw newFileRefusal(path, what, err) ?? err;
  }
  return path;
}

export const exportCommand = defineCommand({
  meta: {
    name: "export",
    description: COMMAND_DESCRIPTIONS.export,
  },
  args: {
    forgotten: { type: "boolean", description: "Forgotten memories too" },
    output: { type: "string", alias: "o", description: "Write to this new file (created 0600; an existing file is never overwritten)" },
    ...ownerArgs,
  },
  async run({ args }) {
    const path = args.output === undefined ? null : newFilePath(args.output, "an export");
    const lines = clientFor(configFromFlags(args)).transfer.export({ forgotten: args.forgotten || undefined });
    let sink: ReturnType<typeof Bun.stdout.writer> | undefined;
    let expected = 0;
    let count = -1;
    try {
      for await (const line of lines) {
        if (count === -1) {
          expected = parseInput(ExportHeaderSchema, JSON.parse(line), "export header").count;
          // Created once the daemon answers, so a refusal leaves no empty file behind.
          sink = path === null ? Bun.stdout.writer() : Bun.file(openNew(path)).writer();
        }
        sink!.write(`${line}\n`);
        if (++count % FLUSH_EVERY === 0) await sink!.flush();
      }
      if (count !== expected) throw new Error(`the export ended after ${Math.max(count, 0)} of ${expected} memories: run it again`);
      await sink!.end();
    } catch (err) {
      await sink?.end();
      if (path !== null && sink !== undefined) rmSync(path, { force: true });
      throw err;
    }
    if (path !== null) emit({ path, count, forgotten: args.forgotten === true }, args, (r) => `exported ${r.count} memories to ${r.path}`);
  },
});

/** The export's file, created now (0600, exclusively, never through a link); a refusal in words. */
function openNew(path: string): number {
  try {
    return openOwnerOnly(path, constants.O_WRONLY | constants.O_EXCL);
  } catch (err) {
    // openOwnerOnly words a link its own way, for data-directory files: a new file's words here.
    throw newFileRefusal(path, "an export", (err as Error).name === "UnsafePathError" ? { code: "ELOOP" } : err) ?? err;
  }
}

export const backup = defineCommand({
  meta: {
    name: "backup",
    description: COMMAND_DESCRIPTIONS.backup,
  },
  args: {
    file: { type: "positional", text: true, description: "The new file (a relative path is taken from the current directory)", required: true },
    ...ownerArgs,
  },
  async run({ args }) {
    if (args.file.trim() === "") throw new UsageError("give a file name: a backup is written to a new file");
    const body = parseInput(TRANSFER_API.backup.body, { path: resolve(args.file) }, "backup");
    // The daemon makes the file, and refuses one that cannot be made in words: a file already there
    // (409) is a bad argument like the others (400), exit 2 as for `signet export -o`.
    const result = await clientFor(configFromFlags(args))
      .transfer.backup(body)
      .catch((err: unknown) => {
        throw err instanceof ApiError && err.code === "exists" ? new UsageError(err.message) : err;
      });
    emit(result, args, (r) => `copied ${r.memories} memories (${r.bytes} bytes) to ${r.path}`);
  },
});

/** One thing to send, with where it came from for error messages and its size on the wire. */
interface Item {
  value: unknown;
  where: string;
  bytes: number;
}

/**
 * What an import sends, read twice: first checking every item (a bad one throws, naming
 * it) before any is sent, then to send them.
 */
type ItemReader = (check: boolean) => AsyncGenerator<Item>;

const item = (value: unknown, where: string): Item => ({ value, where, bytes: Buffer.byteLength(JSON.stringify(value)) });

/** The non-blank lines of a file, numbered from 1, read as a stream (a byte order mark before the first is no part of it). */
async function* fileLines(path: string): AsyncGenerator<{ text: string; where: string }> {
  const input = createReadStream(path, { encoding: "utf8" });
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    const text = n++ === 0 ? line.replace(/^\uFEFF/, "") : line;
    if (text.trim() !== "") yield { text, where: `${path}:${n}` };
  }
}

function parsedLine(line: { text: string; where: string }): unknown {
  try {
    return JSON.parse(line.text);
  } catch (err) {
    throw new UsageError(`${line.where}: not a JSON line (${(err as Error).message})`);
  }
}

/** Checks `value` against `schema`, naming the line of the file when it fails. */
function check(schema: z.ZodType, value: unknown, where: string): void {
  try {
    parseInput(schema, value, "line");
  } catch (err) {
    throw new UsageError(`${where}: ${(err as Error).message}`);
  }
}

/** The records of a Signet export: a file with a bad line, or fewer memories than its header counts (a cut file), imports nothing. */
function exportItems(path: string): ItemReader {
  return async function* (checking) {
    let count = -1;
    let expected = 0;
    for await (const line of fileLines(path)) {
      const value = parsedLine(line);
      if (count++ === -1) {
        if (checking) expected = exportHeader(value, line.where).count;
        continue;
      }
      if (checking) check(ExportRecordSchema, value, line.where);
      yield item(value, line.where);
    }
    if (!checking) return;
    if (count === -1) throw new UsageError(`${path} is empty: it is not a Signet export`);
    if (count !== expected) throw new UsageError(`${path} holds ${count} memories but its header counts ${expected}: the file is incomplete`);
  };
}

function exportHeader(value: unknown, where: string): z.output<typeof ExportHeaderSchema> {
  try {
    return parseInput(ExportHeaderSchema, value, "export header");
  } catch (err) {
    const graph = ["entity", "relation"].includes((value as { type?: unknown } | null)?.type as string);
    throw new UsageError(`${where}: ${(err as Error).message}${graph ? " (a server-memory file? import it with --from server-memory)" : ""}`);
  }
}

/** The lines of a server-memory memory.jsonl. */
function serverMemoryItems(path: string): ItemReader {
  return async function* (checking) {
    for await (const line of fileLines(path)) {
      const value = parsedLine(line);
      if (checking) check(ServerMemoryItemSchema, value, line.where);
      yield item(value, line.where);
    }
  };
}

/** The markdown notes under a basic-memory directory (hidden directories left out), in path order. */
function basicMemoryItems(dir: string): ItemReader {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a directory: --from basic-memory reads a directory of notes`);
    entries = readdirSync(dir, { recursive: true, encoding: "utf8" });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${dir}: ${(err as Error).message}`);
  }
  const notes = entries
    .filter((p) => p.endsWith(".md") && !p.split(sep).some((part) => part.startsWith(".")))
    .map((p) => join(dir, p))
    .filter((p) => statSync(p).isFile())
    .sort();
  return async function* (checking) {
    for (const file of notes) {
      const text = readFileSync(file, "utf8");
      if (checking && text.length > NOTE_MAX_CHARS) throw new UsageError(`${file} is larger than ${NOTE_MAX_CHARS} characters: split it to import it; nothing was imported`);
      yield item({ path: relative(dir, file).split(sep).join("/"), text, modifiedAt: statSync(file).mtime.toISOString() }, file);
    }
  };
}

const BATCH_KEY: Record<ImportFormat, string> = { signet: "records", "server-memory": "items", "basic-memory": "notes" };

/** What items of one request may weigh together: JSON escapes and the request's own fields take room beside them. */
const batchBudget = (maxBodyBytes: number) => Math.floor(maxBodyBytes * 0.9) - 1024;

/** The largest `daemon.maxBodyBytes` the configuration takes (src/config/schema.ts). */
const MAX_BODY_BYTES_LIMIT = 256 * 1024 * 1024;

/**
 * Reads every item with its checks, and refuses one that no request could carry, before anything is
 * sent: an import that stopped halfway would leave the file half imported.
 */
async function checkAll(read: ItemReader, maxBodyBytes: number): Promise<void> {
  const budget = batchBudget(maxBodyBytes);
  for await (const { where, bytes } of read(true)) {
    if (bytes <= budget) continue;
    const needed = Math.ceil((bytes + 1024) / 0.9) + 1;
    const how =
      needed <= MAX_BODY_BYTES_LIMIT
        ? `set daemon.maxBodyBytes to at least ${needed} (agent.yaml) and restart the daemon (signet daemon restart) to import it`
        : `more than daemon.maxBodyBytes may be (${MAX_BODY_BYTES_LIMIT}): it cannot be imported`;
    throw new UsageError(`${where} is ${bytes} bytes, more than one request may carry (daemon.maxBodyBytes is ${maxBodyBytes}): ${how}; nothing was imported`);
  }
}

/**
 * Sends the items in batches that fit one request (`maxBodyBytes`: the daemon's limit, from the same
 * configuration), adding up what the daemon did with them. A failure after the first batch says
 * what was imported before it.
 */
async function sendAll(client: SignetClient, maxBodyBytes: number, format: ImportFormat, items: AsyncGenerator<Item>): Promise<ImportResponse> {
  const budget = batchBudget(maxBodyBytes);
  const total: ImportResponse = { imported: 0, skipped: 0, duplicates: [], conflicts: [], rejected: [] };
  let batch: Item[] = [];
  let bytes = 0;
  let lastSent: string | undefined;
  const flush = async () => {
    if (batch.length === 0) return;
    // The items are of the format's kind: checked against its schema before any was sent, or built to it (notes).
    const answer = await client.transfer.import({ format, [BATCH_KEY[format]]: batch.map((i) => i.value) } as BodyOf<typeof TRANSFER_API.import>);
    total.imported += answer.imported;
    total.skipped += answer.skipped;
    total.duplicates.push(...answer.duplicates);
    total.conflicts.push(...answer.conflicts);
    total.rejected.push(...answer.rejected);
    lastSent = batch.at(-1)!.where;
    batch = [];
    bytes = 0;
  };
  try {
    for await (const item of items) {
      if (batch.length === BATCH || bytes + item.bytes > budget) await flush();
      batch.push(item);
      bytes += item.bytes + 1;
    }
    await flush();
  } catch (err) {
    if (lastSent === undefined) throw err;
    const done = `imported ${total.imported}, skipped ${total.skipped}, duplicates ${total.duplicates.length}, conflicts ${total.conflicts.length}, rejected ${total.rejected.length}`;
    throw new ExitError(
      exitCodeOf(err),
      `${(err as Error).message}; everything up to ${lastSent} was sent before this (${done}): run the import again to send the rest (what is stored already is skipped)`,
    );
  }
  return total;
}

function renderImport(r: ImportResponse & { source: string }): string {
  const lines = [
    `${r.source}: imported ${r.imported} · skipped ${r.skipped} (already stored) · duplicates ${r.duplicates.length} · conflicts ${r.conflicts.length}` +
      (r.rejected.length > 0 ? ` · rejected ${r.rejected.length}` : ""),
  ];
  const list = <T>(label: string, entries: T[], text: (e: T) => string) => {
    for (const e of entries.slice(0, SHOWN)) lines.push(`  ${label}: ${text(e)}`);
    if (entries.length > SHOWN) lines.push(`  ... and ${entries.length - SHOWN} more ${label}s (--json lists them all)`);
  };
  list("duplicate", r.duplicates, (d) => `${d.id} not imported: memory ${d.existingId} has the same text`);
  list("conflict", r.conflicts, (c) => c.reason);
  list("rejected", r.rejected, (x) => `${x.source}: ${x.reason}`);
  return lines.join("\n");
}

export const importCommand = defineCommand({
  meta: {
    name: "import",
    description: COMMAND_DESCRIPTIONS.import,
  },
  args: {
    source: { type: "positional", text: true, description: "The file, or with --from basic-memory the notes directory", required: true },
    from: { type: "string", description: `What it is: ${IMPORT_FORMATS.join(", ")} (default signet)` },
    ...clientArgs,
  },
  async run({ args }) {
    const format = (args.from ?? "signet") as ImportFormat;
    if (!IMPORT_FORMATS.includes(format)) throw new UsageError(`--from ${JSON.stringify(args.from)}: use one of ${IMPORT_FORMATS.join(", ")}`);
    const source = resolve(args.source);
    if (format !== "basic-memory") {
      if (!existsSync(source)) throw new UsageError(`${source} does not exist`);
      if (statSync(source).isDirectory()) throw new UsageError(`${source} is a directory: give the file (a directory of notes is --from basic-memory)`);
    }
    const read = format === "signet" ? exportItems(source) : format === "server-memory" ? serverMemoryItems(source) : basicMemoryItems(source);
    const config = configFromFlags(args);
    await checkAll(read, config.daemon.maxBodyBytes);
    const result = { source, format, ...(await sendAll(clientFor(config), config.daemon.maxBodyBytes, format, read(false))) };
    emit(result, args, renderImport);
    // Something was left out that the file asked for: a script must notice.
    if (result.conflicts.length > 0 || result.rejected.length > 0) throw new ExitError(EXIT.failed);
  },
});
