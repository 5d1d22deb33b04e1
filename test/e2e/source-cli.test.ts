// `signet source add|list|sync|search|rm` run as a user would: the compiled binary against a real
// daemon (docs/api.md#sources), PDF text extraction inside the binary included, exit codes, the
// admin token read by the CLI itself, and the progress bar on a terminal only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, acrossKill9, json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { tinyPdf } from "../helpers/pdf";

let s: Sandbox;
let docs: string;
const cli = (args: string[], cwd?: string) => run(args, { env: s.env, cwd });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
  docs = join(s.home, "docs");
  mkdirSync(join(docs, "code"), { recursive: true });
  writeFileSync(join(docs, "guide.md"), "# Guide\n\nThe marmot hibernates through the alpine winter.\n");
  writeFileSync(join(docs, "notes.txt"), "Ibex climb dams for the salt.\n");
  writeFileSync(join(docs, "code", "den.ts"), "export function denDepth(snow: number) {\n  return snow * 2;\n}\n");
  writeFileSync(join(docs, "paper.pdf"), tinyPdf([["Chamois graze on steep alpine meadows"]]));
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("signet source", () => {
  test("add takes a relative directory, sends it absolute, and parses Markdown, text, code and PDF", async () => {
    const r = await cli(["source", "add", "docs"], s.home);
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out).toMatchObject({ created: true, scanned: 4, parsed: 4, skipped: [], source: { path: docs, kind: "dir", files: 4 } });
    // pdf.js runs inside the compiled binary.
    const pdf = json(await cli(["source", "search", "chamois meadows"]));
    expect(pdf.results[0]).toMatchObject({ path: join(docs, "paper.pdf"), startLine: 1, endLine: 1 });
  });

  test("search prints path:start-end on a terminal rendering, JSON otherwise", async () => {
    const pretty = await cli(["source", "search", "marmot hibernates", "--pretty"]);
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toContain(`${join(docs, "guide.md")}:1-3`);
    const code = json(await cli(["source", "search", "den depth"]));
    expect(code.results[0]).toMatchObject({ path: join(docs, "code", "den.ts"), heading: "export function denDepth" });
  });

  test("a newline in a file name is shown escaped, keeping each result's path:start-end on its line", async () => {
    const odd = join(s.home, "odd");
    mkdirSync(odd);
    writeFileSync(join(odd, "new\nline.txt"), "The pika stores hay for the winter.\n");
    expect((await cli(["source", "add", odd])).code).toBe(0);
    const pretty = await cli(["source", "search", "pika hay", "--pretty"]);
    expect(pretty.stdout.split("\n")[0]).toBe(`${odd}/new\\x0aline.txt:1-1  (${json(await cli(["source", "search", "pika hay"])).results[0].score})`);
    const listed = await cli(["source", "list", "--pretty"]);
    expect(listed.stdout).toContain(odd);
    expect((await cli(["source", "rm", odd])).code).toBe(0);
  });

  test("list and sync: an unchanged tree is not parsed again", async () => {
    const list = json(await cli(["source", "list"]));
    expect(list.sources).toEqual([expect.objectContaining({ id: 1, path: docs, files: 4 })]);
    writeFileSync(join(docs, "notes.txt"), "Ibex climb dams for the salt, and lick the stone.\n");
    const sync = json(await cli(["source", "sync"]));
    expect(sync.reports.map((r: any) => [r.parsed, r.unchanged])).toEqual([[1, 3]]);
    expect(json(await cli(["source", "sync", docs])).reports[0].parsed).toBe(0);
  });

  test("bad input exits 2 naming the problem; a missing admin token exits 4", async () => {
    const missing = await cli(["source", "add", "/no/such/dir"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("path: /no/such/dir does not exist");
    const device = await cli(["source", "add", "/dev/null"]);
    expect([device.code, device.stderr.includes("is a character device")]).toEqual([2, true]);
    // The daemon checks a search's flags and names the field.
    const limit = await cli(["source", "search", "ibex", "--limit", "0"]);
    expect([limit.code, limit.stderr.includes("limit")]).toEqual([2, true]);
    const unknown = await cli(["source", "rm", "/not/a/source"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no source for /not/a/source");
    const token = join(s.dataDir, ".daemon", "admin.token");
    renameSync(token, `${token}.away`);
    try {
      const refused = await cli(["source", "add", docs]);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain("needs the owner's admin token");
    } finally {
      renameSync(`${token}.away`, token);
    }
  });

  test("a progress bar shows on a terminal, never in a pipe", async () => {
    const many = join(s.home, "many");
    mkdirSync(many);
    for (let i = 0; i < 100; i++) writeFileSync(join(many, `n${i}.txt`), `note ${i}`);
    const piped = await cli(["source", "add", many]);
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain("ingesting [");
    const env = Object.entries(s.env)
      .map(([k, v]) => `${k}='${v}'`)
      .join(" ");
    // script(1) gives the command a pseudo-terminal; its output is the terminal's.
    const tty = await run(["-qec", `env ${env} ${BIN} source sync ${many}`, "/dev/null"], { env: s.env, bin: "/usr/bin/script" });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain("syncing [##############################] 100/100 files");
    expect(tty.stdout).toContain(`synced ${many}`);
  });

  test("rm by path removes the source; its files stay", async () => {
    const r = await cli(["source", "rm", "docs"], s.home);
    expect(r.code).toBe(0);
    expect(json(r).removed).toMatchObject({ path: docs, files: 4 });
    expect(json(await cli(["source", "list"])).sources.map((x: any) => x.path)).not.toContain(docs);
    expect(json(await cli(["source", "search", "marmot"])).results).toEqual([]);
    expect(readFileSync(join(docs, "guide.md"), "utf8")).toContain("marmot");
  });

  test("--help explains the commands", async () => {
    const help = await cli(["source", "--help"]);
    expect(help.code).toBe(0);
    for (const sub of ["add", "list", "rm", "sync", "search"]) expect(help.stdout).toContain(sub);
    const add = await cli(["source", "add", "--help"]);
    expect(add.stdout).toContain("--glob");
  });
});

describe("durability", () => {
  test("an acknowledged add survives kill -9; after a restart the loaded index answers", async () => {
    const d = await sandbox("embedding:\n  provider: none\n");
    const dir = join(d.home, "kept");
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `k${i}.md`), `# Kept ${i}\n\nThe numbat number ${i} digs for termites.\n`);
    const on = (args: string[]) => run(args, { env: { ...d.env, SIGNET_AUTOSTART: "0" } });
    await acrossKill9(
      d,
      async () => {
        expect(json(await on(["source", "add", dir])).parsed).toBe(20);
      },
      async () => {
        expect(json(await on(["source", "list"])).sources[0]).toMatchObject({ path: dir, files: 20, chunks: 20 });
        const hit = json(await on(["source", "search", "numbat termites", "--limit", "20"]));
        expect(hit.results).toHaveLength(20);
        expect(json(await on(["source", "sync"])).reports[0]).toMatchObject({ parsed: 0, unchanged: 20 });
      },
    );
  });
});
