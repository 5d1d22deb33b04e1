// Command-line flags for the benchmark scripts: `--flag value` or `--flag=value`, whole numbers may
// carry underscores (100_000), unknown flags and bad values end the script with its usage line (exit 2).

export type FlagSpec =
  | { kind: "int"; min?: number }
  | { kind: "bool" }
  | { kind: "string"; choices?: readonly string[] }
  | { kind: "intList"; min?: number };

type FlagValue<S extends FlagSpec> = S extends { kind: "int" } ? number : S extends { kind: "bool" } ? boolean : S extends { kind: "intList" } ? number[] : string;
export type ParsedFlags<T extends Record<string, FlagSpec>> = { [K in keyof T]: FlagValue<T[K]> };

/** Prints `script: message` and the usage line to stderr, then exits with status 2. */
function usageExit(script: string, usageLine: string, message?: string): never {
  if (message) process.stderr.write(`${script}: ${message}\n`);
  process.stderr.write(`${usageLine}\n`);
  process.exit(2);
}

function wholeNumber(text: string): number | null {
  const t = text.replace(/_/g, "");
  return /^\d+$/.test(t) ? Number(t) : null;
}

/**
 * Parses `argv` against `spec` (keys are flag names without the dashes, e.g. "count" for --count),
 * starting from `defaults`. `--help` / `-h` prints the usage line.
 */
export function parseFlags<T extends Record<string, FlagSpec>>(
  argv: string[],
  spec: T,
  defaults: ParsedFlags<T>,
  usage: { script: string; line: string },
): ParsedFlags<T> {
  const out = { ...defaults } as Record<string, unknown>;
  const fail = (message?: string): never => usageExit(usage.script, usage.line, message);
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const eq = raw.indexOf("=");
    const [flag, inline] = eq >= 0 ? [raw.slice(0, eq), raw.slice(eq + 1)] : [raw, undefined];
    if (flag === "--help" || flag === "-h") fail();
    const key = flag.startsWith("--") ? flag.slice(2) : "";
    const s = Object.hasOwn(spec, key) ? spec[key] : undefined;
    if (!s) fail(`unknown argument ${raw}`);
    if (s!.kind === "bool") {
      out[key] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) fail(s!.kind === "int" ? `${flag} needs a whole number` : `${flag} needs a value`);
    switch (s!.kind) {
      case "int": {
        const n = wholeNumber(value!);
        if (n === null) fail(`${flag} needs a whole number`);
        if (s!.min !== undefined && n! < s!.min) fail(`${flag} must be at least ${s!.min}`);
        out[key] = n;
        break;
      }
      case "intList": {
        const ns = value!.split(",").map((v) => wholeNumber(v.trim()));
        if (ns.length === 0 || ns.some((n) => n === null)) fail(`${flag} needs whole numbers separated by commas`);
        if (s!.min !== undefined && ns.some((n) => n! < s!.min!)) fail(`${flag}: every value must be at least ${s!.min}`);
        out[key] = ns as number[];
        break;
      }
      case "string": {
        if (s!.choices && !s!.choices.includes(value!)) fail(`${flag} must be one of ${s!.choices.join(", ")}`);
        out[key] = value;
        break;
      }
    }
  }
  return out as ParsedFlags<T>;
}
