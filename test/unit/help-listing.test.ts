// A command tree's help lists its commands by the descriptions their loaders carry, loading none of
// them (src/cli/index.ts gives every `signet` command's loader its line from descriptions.ts).
import { expect, test } from "bun:test";
import { defineCommand } from "../../src/cli/command";
import { runTree, type AnyCommand } from "../../src/cli/run";

test("help lists described commands without loading them, and loads only the undescribed one", async () => {
  const loaded: string[] = [];
  const never = (name: string) => async (): Promise<AnyCommand> => {
    loaded.push(name);
    throw new Error(`${name} was loaded`);
  };
  const plain = defineCommand({ meta: { name: "plain", description: "Loaded to be listed. Second sentence." } }) as AnyCommand;
  const top = defineCommand({
    meta: { name: "t", description: "A tree" },
    subCommands: {
      heavy: Object.assign(never("heavy"), { description: "Listed from its loader. Not this sentence." }),
      plain: async () => (loaded.push("plain"), plain),
    },
  }) as AnyCommand;
  const printed: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => void printed.push(parts.join(" "));
  try {
    expect(await runTree(top, ["--help"])).toBe(0);
  } finally {
    console.log = log;
  }
  expect(loaded).toEqual(["plain"]);
  expect(printed.join("\n")).toContain("heavy  Listed from its loader\n");
  expect(printed.join("\n")).toContain("plain  Loaded to be listed\n");
});
