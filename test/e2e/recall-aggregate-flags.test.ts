// `signet recall`'s aggregate flags with the compiled CLI (docs/cli.md): --budget, --save and
// --no-save shape the aggregate answer only, so without --aggregate each is a usage error naming it
// (exit 2, nothing asked of the daemon); with it they work as before, and the answer is saved by default.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";

let s: Sandbox;
const cli = (args: string[]) => run(args, { env: s.env });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
  expect((await cli(["remember", "The staging database is heron-8"])).code).toBe(0);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

const aggregates = async () => json(await cli(["list", "--type", "aggregate"])).memories.length as number;

describe("signet recall's aggregate flags", () => {
  test.each([
    [["--budget", "large"], "--budget"],
    [["--save"], "--save"],
    [["--no-save"], "--no-save"],
    [["--aggregate=false", "--budget", "small"], "--budget"],
  ])("%p without --aggregate: exit 2 naming %s, nothing on stdout", async (flags, named) => {
    const r = await cli(["recall", "staging database", ...flags]);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toBe(`signet: ${named} applies to the aggregate answer only: add --aggregate, or leave ${named} out\n`);
  });

  test("with --aggregate they apply; the answer is saved unless --no-save", async () => {
    const before = await aggregates();
    const unsaved = json(await cli(["recall", "staging database", "--aggregate", "--budget", "large", "--no-save"]));
    expect(unsaved.aggregate).toMatchObject({ mode: "extractive", saved: { skipped: "saveAggregate is false" } });
    expect(await aggregates()).toBe(before);
    const saved = json(await cli(["recall", "staging database", "--aggregate"]));
    expect(saved.aggregate.saved.id).toEqual(expect.any(String));
    expect(await aggregates()).toBe(before + 1);
  });
});
