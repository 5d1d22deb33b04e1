// A command of the `signet` tree, declared in citty's shape: citty's types only, since its runtime
// loads node:util (run.ts reads the words and runs the command itself).
import type { ArgsDef, CommandDef } from "citty";

export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def;
}
