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
    // A boolean may be repeated: the last counts.
    expect(parseArgs(specs, ["--pinned", "--no-pinned"]).values.pinned).toBe(false);
  });

  test("a flag that takes one value, given twice, is a usage error naming it; a repeatable one collects its values", () => {
    expect(usageError(["--limit", "1", "--limit", "2"])).toBe("--limit given more than once; it takes one value");
    expect(usageError(["-o", "a", "--output=b"])).toBe("--output / -o given more than once; it takes one value");
    // A comma list says how to give several values.
    const tags: [string, ArgSpec][] = [["tags", { type: "string", commaList: true, description: "Comma-separated tags" }]];
    expect(() => parseArgs(tags, ["--tags", "a", "--tags", "b"])).toThrow("--tags given more than once; it takes one value: give the values together, comma-separated (--tags a,b)");
    expect(parseArgs(specs, ["-p", "a=1", "--param", "b=2", "-p=c=3"]).values.param).toEqual(["a=1", "b=2", "c=3"]);
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
    await expect(runTree(top, ["toString"])).rejects.toThrow('unknown command "toString"');
    expect(seen).toEqual([]);
  });
});

describe("runTree: words beyond a command's own", () => {
  const ran: Record<string, unknown>[] = [];
  // ArgSpec's fields beyond citty's (text, surplus, a positional's multiple) are read by run.ts alone.
  const command = (args: Record<string, ArgSpec>) =>
    ({ meta: { name: "c" }, args, run: ({ args }: { args: Record<string, unknown> }) => void ran.push(args) }) as unknown as AnyCommand;
  const top = defineCommand({
    meta: { name: "t" },
    subCommands: {
      list: command({ limit: { type: "string" } }),
      get: command({ id: { type: "positional", required: true } }),
      remember: command({ content: { type: "positional", required: true, text: true }, tags: { type: "string" } }),
      copy: command({ from: { type: "positional", required: true, text: true }, to: { type: "positional", required: true, text: true } }),
      set: command({ name: { type: "positional", required: true, surplus: "the value never comes from the command line" } }),
      add: command({ name: { type: "positional", required: true }, command: { type: "positional", multiple: true }, url: { type: "string" } }),
    },
  }) as AnyCommand;

  test("are refused by name, before the command runs, with how to quote a text", async () => {
    ran.length = 0;
    await expect(runTree(top, ["list", "extra", "words"])).rejects.toThrow('unexpected words "extra" "words": t list takes no words; see `t list --help`');
    await expect(runTree(top, ["get", "abc", "def"])).rejects.toThrow('unexpected word "def": t get takes one <id>; see `t get --help`');
    await expect(runTree(top, ["remember", "Always", "run", "--tags", "x", "tests"])).rejects.toThrow(
      'unexpected words "run" "tests": t remember takes one <content>; to give several words, quote them: t remember "Always run tests"',
    );
    await expect(runTree(top, ["copy", "a b", "my", "notes"])).rejects.toThrow(
      'unexpected word "notes": t copy takes <from> <to>; to give several words, quote them: t copy "a b" "my notes"',
    );
    // Words after `--` are words like the others.
    await expect(runTree(top, ["remember", "--", "-x", "y"])).rejects.toThrow('unexpected word "y"');
    // A word that may be a secret is not repeated.
    const secret = await runTree(top, ["set", "NAME", "hunter2"]).catch((e: Error) => e);
    expect(secret).toBeInstanceOf(UsageError);
    expect((secret as Error).message).toBe("t set takes one <name>: the value never comes from the command line");
    expect(ran).toEqual([]);
  });

  test("a positional declared `multiple` takes every word left, `--` and all", async () => {
    ran.length = 0;
    expect(await runTree(top, ["add", "srv", "--", "npx", "-y", "pkg", "--url", "u"])).toBe(0);
    expect(await runTree(top, ["add", "srv", "--url", "u"])).toBe(0);
    expect(await runTree(top, ["remember", "--", "-starts with a dash"])).toBe(0);
    expect(ran).toEqual([
      { _: ["srv", "npx", "-y", "pkg", "--url", "u"], name: "srv", command: ["npx", "-y", "pkg", "--url", "u"] },
      { _: ["srv"], name: "srv", url: "u" },
      { _: ["-starts with a dash"], content: "-starts with a dash" },
    ]);
  });
});

describe("runTree: a flag's value before the subcommand's name", () => {
  const ran: unknown[] = [];
  const loaded: string[] = [];
  const leaf = (name: string, args: Record<string, ArgSpec>) =>
    ({ meta: { name }, args, run: ({ args }: { args: unknown }) => void ran.push({ [name]: args }) }) as unknown as AnyCommand;
  const client = { url: { type: "string" }, agent: { type: "string" }, json: { type: "boolean" } } satisfies Record<string, ArgSpec>;
  const group = {
    meta: { name: "embed" },
    args: client,
    subCommands: { status: leaf("status", client), list: leaf("list", { ...client, role: { type: "string", alias: "r" } }) },
    run: ({ args }: { args: unknown }) => void ran.push({ embed: args }),
  } as unknown as AnyCommand;
  // The top level's subcommands load lazily: only the one named is loaded to read its flags.
  const lazy = (name: string, cmd: AnyCommand) => () => (loaded.push(name), Promise.resolve(cmd));
  const top = defineCommand({
    meta: { name: "t" },
    subCommands: { embed: lazy("embed", group), list: lazy("list", leaf("top-list", client)), other: lazy("other", leaf("other", {})) },
  }) as AnyCommand;

  test("is read as the value, at every level, loading only the commands named", async () => {
    ran.length = 0;
    loaded.length = 0;
    expect(await runTree(top, ["embed", "--url", "http://127.0.0.1:42130", "status"])).toBe(0);
    expect(await runTree(top, ["--agent", "default", "embed", "--json", "-r", "admin", "list"])).toBe(0);
    // A value that is also a command's name: the name is the word after it.
    expect(await runTree(top, ["embed", "--agent", "list", "list"])).toBe(0);
    expect(await runTree(top, ["--agent", "list", "list"])).toBe(0);
    // The group runs itself when its flags and their values are all there is.
    expect(await runTree(top, ["embed", "--url", "http://x"])).toBe(0);
    // The name may also be the first word after `--`.
    expect(await runTree(top, ["--agent", "a", "--", "list"])).toBe(0);
    expect(ran).toEqual([
      { status: { _: [], url: "http://127.0.0.1:42130" } },
      { list: { _: [], agent: "default", json: true, role: "admin", r: "admin" } },
      { list: { _: [], agent: "list" } },
      { "top-list": { _: [], agent: "list" } },
      { embed: { _: [], url: "http://x" } },
      { "top-list": { _: [], agent: "a" } },
    ]);
    expect(loaded).not.toContain("other");
  });

  test("a word that is neither a command nor a flag's value is still an unknown command", async () => {
    await expect(runTree(top, ["embed", "--url", "http://x", "stauts"])).rejects.toThrow('unknown command "stauts"; see `t embed --help`');
    await expect(runTree(top, ["--agent", "x", "nothing"])).rejects.toThrow('unknown command "x"');
    await expect(runTree(top, ["--", "nothing"])).rejects.toThrow('unknown command "nothing"');
  });
});
