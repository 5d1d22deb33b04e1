// The compiled binary indexes code with the grammars embedded in it (run from a folder with no
// node_modules), and `signet code ...` answers from the daemon for the project of its directory:
// JSON off a terminal, text with --pretty, exit codes 0 / 1 / 2 / 4.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { codeProjectCopy } from "../helpers/code-project";

let s: Sandbox;
let project: string;
// cwd: the project copy in /tmp, so nothing can be found in this repository's node_modules.
const cli = (args: string[]) => run(args, { env: s.env, cwd: project, timeoutMs: 30_000 });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  project = codeProjectCopy();
  const start = await cli(["daemon", "start"]);
  if (start.code !== 0) throw new Error(`daemon did not start: ${start.stderr}`);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
  rmSync(dirname(project), { recursive: true, force: true });
});

describe("signet index and signet code, compiled", () => {
  test("before indexing: no code index for this folder, exit 1", async () => {
    const r = await cli(["code", "status"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no code index for ${project}: run \`signet index ${project}\``);
  });

  test("index parses all five languages; a second run parses nothing", async () => {
    const first = await cli(["index", "."]);
    expect(first.code).toBe(0);
    const run1 = json(first);
    expect(run1).toMatchObject({ project, files: 9, unchanged: 0, failed: [] });
    expect(run1.parsed).toHaveLength(9);
    expect(first.stderr).toBe(""); // no progress bar off a terminal
    const again = json(await cli(["index", project]));
    expect(again).toMatchObject({ parsed: [], unchanged: 9 });
  });

  test("code context, blast, search, constants from the daemon", async () => {
    const ctx = json(await cli(["code", "context", "normalize"]));
    expect(ctx.definition).toMatchObject({ name: "normalize", path: "py/helpers.py", doc: "Lower-cases an item." });
    expect(ctx.callers.map((e: any) => `${e.symbol.container}.${e.symbol.name}`)).toEqual(["Worker.handle"]);
    const blast = json(await cli(["code", "blast", "openStore", "--depth", "2"]));
    expect(blast.nodes.map((n: any) => n.name)).toEqual(["saveRecord", "describe"]);
    const pretty = await cli(["code", "blast", "openStore", "--pretty"]);
    expect(pretty.stdout).toContain("<- function saveRecord (src/service.ts:5-10) (depth 1)");
    const search = json(await cli(["code", "search", "queue", "--top", "2"]));
    expect(search.hits[0]).toMatchObject({ name: "Queue", path: "rust/lib.rs" });
    const constants = json(await cli(["code", "constants"]));
    expect(constants.constants.map((c: any) => c.value)).toEqual(["50", "records-store"]);
    const doctor = await cli(["code", "doctor"]);
    expect(doctor.code).toBe(0);
    expect(json(doctor).checks.filter((c: any) => c.name.startsWith("grammar") && c.ok)).toHaveLength(6);
  });

  test("signet code answers for the project of the current directory; --project names another", async () => {
    expect(json(await run(["code", "status"], { env: s.env, cwd: join(project, "py"), timeoutMs: 30_000 })).project).toBe(project);
    const outside = dirname(project); // no index covers the copy's parent folder
    const r = await run(["code", "search", "queue"], { env: s.env, cwd: outside, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no code index for ${outside}`);
    const named = json(await run(["code", "search", "queue", "--project", project], { env: s.env, cwd: outside, timeoutMs: 30_000 }));
    expect(named.project).toBe(project);
    expect(named.hits[0].name).toBe("Queue");
  });

  test("exit codes: unknown symbol 1, bad flag value 2, clear without --confirm 2", async () => {
    expect((await cli(["code", "context", "noSuchSymbol"])).code).toBe(1);
    const sideways = await cli(["code", "blast", "openStore", "--direction", "sideways"]);
    expect([sideways.code, sideways.stderr.includes("direction")]).toEqual([2, true]);
    const clear = await cli(["code", "clear"]);
    expect(clear.code).toBe(2);
    expect(clear.stderr).toContain("confirm: must be true");
    const cleared = json(await cli(["code", "clear", "--confirm"]));
    expect(cleared).toEqual({ project, cleared: true });
    expect(json(await cli(["code", "status"])).totals.files).toBe(0);
    expect((await cli(["index", "/no/such/folder"])).code).toBe(2);
  });
});

test("a project large enough for parsing threads: every file parsed once, calls across files resolved", async () => {
  // 150 files: the indexer parses on this thread and workers, all sharing the grammars it compiled.
  const big = join(dirname(project), "big");
  mkdirSync(join(big, "src"), { recursive: true });
  for (let i = 0; i < 150; i++) {
    const call = i > 0 ? `import { step${i - 1} } from "./m${i - 1}";\nexport function step${i}(): number {\n  return step${i - 1}() + 1;\n}\n` : "export function step0(): number {\n  return 0;\n}\n";
    writeFileSync(join(big, "src", `m${i}.ts`), call);
  }
  const indexed = json(await run(["index", big], { env: s.env, cwd: big, timeoutMs: 30_000 }));
  expect(indexed).toMatchObject({ files: 150, unchanged: 0, failed: [], symbols: 150 });
  expect(new Set(indexed.parsed).size).toBe(150);
  const ctx = json(await run(["code", "context", "step77"], { env: s.env, cwd: big, timeoutMs: 30_000 }));
  expect(ctx.callers.map((e: any) => `${e.symbol.name} ${e.path}`)).toEqual(["step78 src/m78.ts"]);
  expect(ctx.callees.map((e: any) => `${e.symbol.name} ${e.path}:${e.line}`)).toEqual(["step76 src/m77.ts:3"]); // where the call is
});
