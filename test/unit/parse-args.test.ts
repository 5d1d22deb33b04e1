// The CLI's reading of a command's words (src/cli/parse-args.ts) and a command tree run with it
// (src/cli/run.ts): what each form of flag gives, and the usage errors that name the problem.
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../src/cli/errors";
import { defineCommand } from "../../src/cli/command";
import { parseArgs, type ArgSpec } from "../../src/cli/parse-args";
import { runTree, type AnyCommand } from "../../src/cli/run";

const specs: [string, ArgSpec][] = Object.entries({
  id: { type: "positional", required: true },
  limit: { type: "string" },
  output: { type: "string", alias: "o" },
  pinned: { type: "boolean" },
  save: { type: "boolean", default: true },
  "no-broadcast": { type: "boolean" },
  param: { type: "string", alias: "p", multiple: true },
});

function usageError(words: string[]): string {
  try {
    parseArgs(specs, words);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${words.join(" ")}`);
}

describe("parseArgs", () => {
  test("every form of a flag, the defaults, and the words that are values", () => {
    expect(parseArgs(specs, ["abc", "--limit", "5", "-o=out.json", "--pinned", "--no-save", "-p", "a=1", "--param=b=-2", "-", "-3"])).toEqual({
      values: { limit: "5", output: "out.json", pinned: true, save: false, param: ["a=1", "b=-2"] },
      positionals: ["abc", "-", "-3"],
    });
    expect(parseArgs(specs, ["--pinned=false", "--limit=", "-o", "x"]).values).toEqual({ save: true, pinned: false, limit: "", output: "x" });
    // A string flag takes the next word whatever it is; after `--` every word is positional.
    expect(parseArgs(specs, ["--limit", "--pinned", "--", "--limit", "9"])).toEqual({ values: { save: true, limit: "--pinned" }, positionals: ["--limit", "9"] });
    // A flag declared with a no- name is that flag, not a negation.
    expect(parseArgs(specs, ["--no-broadcast"]).values["no-broadcast"]).toBe(true);
    expect(parseArgs(specs, ["--limit", "1", "--limit", "2"]).values.limit).toBe("2");
  });

  test("an unknown flag, a missing value and a boolean given a value are usage errors naming them", () => {
    expect(usageError(["--bogus"])).toBe("unknown option --bogus; valid options: --limit, --output, --pinned, --save, --no-broadcast, --param");
    expect(usageError(["--no-limit"])).toStartWith("unknown option --no-limit");
    expect(usageError(["-x"])).toStartWith("unknown option -x");
    expect(usageError(["--limit"])).toBe("--limit needs a value");
    expect(usageError(["--pinned=yes"])).toContain("--pinned takes no value");
    expect(() => parseArgs(specs, ["--bogus"], ["--only"])).toThrow("unknown option --bogus; valid options: --only");
  });
});

describe("runTree", () => {
  const seen: unknown[] = [];
  const leaf = defineCommand({
    meta: { name: "show", description: "Show one" },
    args: { id: { type: "positional", required: true }, json: { type: "boolean" }, follow: { type: "boolean", alias: "f" } },
    run: ({ args, rawArgs }) => void seen.push({ args, rawArgs }),
  });
  const top = defineCommand({ meta: { name: "t" }, subCommands: { show: leaf } }) as AnyCommand;

  test("the words lead to the command, which gets its flags (those before its name too) under their names and aliases", async () => {
    seen.length = 0;
    expect(await runTree(top, ["--json", "show", "x1", "-f"])).toBe(0);
    expect(seen).toEqual([{ args: { _: ["x1"], id: "x1", json: true, follow: true, f: true }, rawArgs: ["--json", "x1", "-f"] }]);
  });

  test("a missing positional, an unknown flag or an unknown command is refused before the command runs", async () => {
    seen.length = 0;
    await expect(runTree(top, ["show"])).rejects.toThrow("missing <id>");
    await expect(runTree(top, ["show", "x1", "--jsno"])).rejects.toThrow("unknown option --jsno; valid options: --json, --follow");
    await expect(runTree(top, ["shwo"])).rejects.toThrow('unknown command "shwo"');
    expect(seen).toEqual([]);
  });
});
