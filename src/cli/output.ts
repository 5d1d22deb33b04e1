// Output rules for every command: JSON when stdout is not a terminal or with --json; a readable
// rendering on a terminal or with --pretty.
export interface OutputFlags {
  json?: boolean;
  pretty?: boolean;
}

export function wantsJson(flags: OutputFlags): boolean {
  if (flags.json) return true;
  if (flags.pretty) return false;
  return !process.stdout.isTTY;
}

export function emit<T>(data: T, flags: OutputFlags, render: (data: T) => string): void {
  process.stdout.write(wantsJson(flags) ? `${JSON.stringify(data, null, 2)}\n` : `${render(data)}\n`);
}

export const outputArgs = {
  json: { type: "boolean", description: "Print JSON (the default when stdout is not a terminal)" },
  pretty: { type: "boolean", description: "Print a readable rendering (the default on a terminal)" },
} as const;
