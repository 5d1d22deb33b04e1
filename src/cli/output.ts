// Output rules for every command: JSON when stdout is not a terminal or with --json; a readable
// rendering on a terminal or with --pretty, with control characters made visible (terminal-text.ts).
// JSON has them escaped too, wherever it goes: a file or a pipe ends up on a terminal as often
// (`cat`, `less -R`, `tee`), and an escape parses to the same character.
// And the layout of every command's help, wrapped to the terminal's width.
// A command that prints one answer does it without process.stdout: building Node's stdout stream
// costs a short command more than the rest of its start. Commands that stream use stdout().
import { isTerminal } from "../os/terminal";
import { terminalJson, terminalText } from "./terminal-text";

export interface OutputFlags {
  json?: boolean;
  pretty?: boolean;
}

export function wantsJson(flags: OutputFlags): boolean {
  if (flags.json) return true;
  if (flags.pretty) return false;
  return !isTerminal(1);
}

/** A readable rendering on stdout, its control and bidi characters shown as escapes. */
export function writeText(text: string): void {
  console.log(terminalText(text));
}

/** `data` as JSON on stdout, indented unless `compact` (one value a line), control and bidi characters escaped. */
export function writeJson(data: unknown, opts: { compact?: boolean } = {}): void {
  console.log(terminalJson(data, opts.compact ? undefined : 2));
}

let endOnBrokenPipe: ((err: unknown) => void) | undefined;
let stdoutStream: NodeJS.WriteStream | undefined;

/** process.stdout, for a command that streams to it: built on first use, and a broken pipe ends the command (below). */
export function stdout(): NodeJS.WriteStream {
  if (stdoutStream === undefined) {
    stdoutStream = process.stdout;
    if (endOnBrokenPipe) stdoutStream.on("error", endOnBrokenPipe);
  }
  return stdoutStream;
}

export function emit<T>(data: T, flags: OutputFlags, render: (data: T) => string): void {
  if (wantsJson(flags)) writeJson(data);
  else writeText(render(data));
}

/** Whether `err` is a write to a pipe whose reader has gone. */
export function isBrokenPipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === "EPIPE";
}

/**
 * A reader that stops early (`signet export | head`) closes the pipe: what is left to print has
 * nowhere to go and nobody waits for it, so the command ends there, quietly and with exit 0, as `head`
 * meant it to. A failed write comes as process.stdout's 'error' event (once stdout() built it), as
 * the rejection of a stream writer's pending write (Bun.stdout.writer), or thrown by its next write
 * (runCli ends on that one); console.log drops it. Anything else goes on as if unhandled.
 */
export function endQuietlyOnBrokenPipe(): void {
  endOnBrokenPipe = (err: unknown) => {
    if (isBrokenPipe(err)) process.exit(0);
    throw err;
  };
  stdoutStream?.on("error", endOnBrokenPipe);
  process.on("unhandledRejection", endOnBrokenPipe);
}

export const outputArgs = {
  json: { type: "boolean", description: "Print JSON (the default when stdout is not a terminal)" },
  pretty: { type: "boolean", description: "Print a readable rendering (the default on a terminal)" },
} as const;

// ---- Help ----

/** One line of an options or commands list: the flag or name, and what it does. */
export interface HelpEntry {
  label: string;
  text: string;
}

/** A command's help, before it is laid out. */
export interface HelpDoc {
  /** The first paragraph, e.g. "signet remember: Store a memory ...". */
  summary: string;
  usage: string;
  sections: { heading: string; entries: HelpEntry[] }[];
  footer?: string;
}

/** How wide help is laid out: COLUMNS when set (at least 40), else the terminal's width up to 80, else 80. */
export function helpWidth(): number {
  const columns = Number(process.env.COLUMNS);
  if (Number.isInteger(columns) && columns > 0) return Math.max(columns, 40);
  const terminal = isTerminal(1) ? process.stdout.columns : 0;
  return terminal > 0 ? Math.max(Math.min(terminal, 80), 40) : 80;
}

/** `text` in lines of at most `width` characters, broken between words; a longer word is cut. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.length > width) {
      if (line) lines.push(line);
      lines.push(word.slice(0, width));
      word = word.slice(width);
      line = "";
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** `text` wrapped to `width`, its first line after `first` and the others indented as far as it is wide. */
export function hanging(first: string, text: string, width: number): string {
  const pad = " ".repeat(first.replace(/\x1b\[[0-9;]*m/g, "").length);
  return wrap(text, width - pad.length)
    .map((l, i) => `${i === 0 ? first : pad}${l}`.trimEnd())
    .join("\n");
}

/** Labels up to this share of the width share one column; a longer one has its text on the next line. */
const LABEL_SHARE = 0.4;

function entriesText(entries: HelpEntry[], width: number): string {
  const cap = Math.floor(width * LABEL_SHARE);
  const column = Math.max(...entries.map((e) => (e.label.length <= cap ? e.label.length : 0)));
  const indent = `  ${" ".repeat(column)}  `;
  return entries
    .map(({ label, text }) => {
      if (label.length > column) return `  ${label}\n${hanging(indent, text, width)}`;
      return hanging(`  ${label.padEnd(column)}  `, text, width);
    })
    .join("\n");
}

/** A command's help laid out to fit the width; headings bold on a terminal that takes colour. */
export function renderHelp(doc: HelpDoc): string {
  const width = helpWidth();
  const color = isTerminal(1) && !process.env.NO_COLOR && process.env.TERM !== "dumb";
  const heading = (h: string) => (color ? `\x1b[1m${h}\x1b[22m` : h);
  const blocks = [wrap(doc.summary, width).join("\n"), hanging(heading("Usage: "), doc.usage, width)];
  for (const { heading: h, entries } of doc.sections) {
    if (entries.length > 0) blocks.push(`${heading(`${h}:`)}\n${entriesText(entries, width)}`);
  }
  if (doc.footer) blocks.push(wrap(doc.footer, width).join("\n"));
  return `${blocks.join("\n\n")}\n`;
}
