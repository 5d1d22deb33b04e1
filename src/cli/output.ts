// Output rules for every command: JSON when stdout is not a terminal or with --json; a readable
// rendering on a terminal or with --pretty, with control characters made visible (terminal-text.ts).
import { terminalText } from "./terminal-text";

export interface OutputFlags {
  json?: boolean;
  pretty?: boolean;
}

export function wantsJson(flags: OutputFlags): boolean {
  if (flags.json) return true;
  if (flags.pretty) return false;
  return !process.stdout.isTTY;
}

/** A readable rendering on stdout, its control and bidi characters shown as escapes. */
export function writeText(text: string): void {
  process.stdout.write(`${terminalText(text)}\n`);
}

export function emit<T>(data: T, flags: OutputFlags, render: (data: T) => string): void {
  if (wantsJson(flags)) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else writeText(render(data));
}

export const outputArgs = {
  json: { type: "boolean", description: "Print JSON (the default when stdout is not a terminal)" },
  pretty: { type: "boolean", description: "Print a readable rendering (the default on a terminal)" },
} as const;
