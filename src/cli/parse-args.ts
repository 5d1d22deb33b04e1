// A command's words read as its declared flags and positionals. The CLI's own, not citty's or
// node:util's parseArgs: loading node:util costs each command about 2 ms of its start, more than this
// whole module, and one reader serves both the command tree (run.ts) and `signet mcp <server> <tool>`.
import { UsageError } from "./errors";

/** What a flag or positional is declared as (citty's ArgDef, as the commands use it). */
export interface ArgSpec {
  type?: string;
  alias?: string | string[];
  description?: string;
  required?: boolean;
  default?: unknown;
  /**
   * A flag that may be given more than once: its values in order. A positional declared so takes
   * every word left, as a list (run.ts).
   */
  multiple?: boolean;
  /**
   * A positional that is free text or a path, which may hold spaces: words beyond it are refused
   * with how to quote them together (run.ts).
   */
  text?: boolean;
  /** What a refusal of words beyond the positionals says instead of naming them (they may be a secret). */
  surplus?: string;
  /** A flag whose one value is a comma-separated list (`--tags a,b`): given twice, it says to join them. */
  commaList?: boolean;
}

export interface ParsedWords {
  /** Each flag given (and each default), under its declared name. */
  values: Record<string, string | boolean | string[]>;
  /** The words that are not flags, and every word after `--`. */
  positionals: string[];
}

/** The flag names of an argument, long and short: `["--follow", "-f"]`. */
export function flagNames(name: string, spec: ArgSpec): string[] {
  return [name, ...[spec.alias ?? []].flat()].map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
}

/** A word that is a value, never a flag: `-` (stdin) and negative numbers. */
const isValueWord = (word: string) => !word.startsWith("-") || word === "-" || /^-\d/.test(word);

/**
 * `--name value`, `--name=value`, `-x value`, `--flag`, `--flag=false`, `--no-flag`; a string flag
 * takes the next word whatever it is (`--param b=-2`). An undeclared flag, a string flag with nothing
 * after it, a string flag given twice that is not `multiple` (the first value would be lost without
 * a word) or a boolean given a value other than true or false is a usage error naming it; `valid` is
 * what that error lists (default: the declared long flags). A boolean may be repeated: the last counts.
 */
export function parseArgs(specs: Iterable<[string, ArgSpec]>, words: string[], valid?: string[]): ParsedWords {
  const byFlag = new Map<string, [string, ArgSpec]>();
  const values: ParsedWords["values"] = {};
  for (const [name, spec] of specs) {
    if (spec.type === "positional") continue;
    for (const flag of flagNames(name, spec)) byFlag.set(flag, [name, spec]);
    if (spec.default !== undefined) values[name] = spec.default as string | boolean;
  }
  const positionals: string[] = [];
  const given = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      positionals.push(...words.slice(i + 1));
      break;
    }
    if (isValueWord(word)) {
      positionals.push(word);
      continue;
    }
    const eq = word.indexOf("=");
    const flag = eq < 0 ? word : word.slice(0, eq);
    const inline = eq < 0 ? undefined : word.slice(eq + 1);
    const negated = flag.startsWith("--no-") && inline === undefined ? byFlag.get(`--${flag.slice(5)}`) : undefined;
    if (negated?.[1].type === "boolean") {
      values[negated[0]] = false;
      continue;
    }
    const declared = byFlag.get(flag);
    if (declared === undefined) {
      const listed = valid ?? [...byFlag.keys()].filter((f) => f.startsWith("--"));
      throw new UsageError(`unknown option ${word}${listed.length > 0 ? `; valid options: ${listed.join(", ")}` : ""}`);
    }
    const [name, spec] = declared;
    if (spec.type === "boolean") {
      if (inline !== undefined && inline !== "true" && inline !== "false") throw new UsageError(`${flag} takes no value (or true / false), not ${JSON.stringify(inline)}`);
      values[name] = inline !== "false";
      continue;
    }
    const value = inline ?? words[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    if (!spec.multiple && given.has(name)) throw repeated(name, spec);
    given.add(name);
    values[name] = spec.multiple ? [...((values[name] as string[] | undefined) ?? []), value] : value;
  }
  return { values, positionals };
}

/** A single-value flag given twice: which value was meant is the user's to say. */
function repeated(name: string, spec: ArgSpec): UsageError {
  const names = flagNames(name, spec).join(" / ");
  // A list in one value (`--tags a,b`): the way to give several is to join them.
  const list = spec.commaList ? `: give the values together, comma-separated (--${name} a,b)` : "";
  return new UsageError(`${names} given more than once; it takes one value${list}`);
}
