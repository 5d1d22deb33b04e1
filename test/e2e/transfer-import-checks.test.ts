// `signet import` checks its whole file before it sends any of it (docs/cli.md#export-import-and-backup):
// a line no request may carry (daemon.maxBodyBytes) or a note too long, however late in the file, is
// refused with exit 2 naming it and what to do, and nothing is imported; a failure after some batches
// were imported says what was. A leading byte order mark is no part of the file's first line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, sandbox, type Sandbox } from "../helpers/binary";
import { exportHeader, exportRecord, type ExportRecordLine } from "../helpers/export-record";

const YAML = "embedding:\n  provider: none\n";
let s: Sandbox;
const cli = (args: string[]) => run(args, { env: s.env, cwd: s.home });

beforeAll(async () => {
  s = await sandbox(YAML);
  expect((await cli(["daemon", "start"])).code).toBe(0);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

/** A memory of 90,000 characters changed ten times: every history entry holds its text, over 1 MiB on its line. */
function large(): ExportRecordLine {
  const r = exportRecord(crypto.randomUUID(), "x".repeat(90_000 - 10));
  const history = Array.from({ length: 11 }, (_, i) => ({ ...r.history[0]!, version: i + 1, action: i === 0 ? "create" : "modify", content: "x".repeat(90_000 - i) }));
  return { ...r, version: 11, history: history as ExportRecordLine["history"] };
}

/** An export of 300 small memories and then the large one. */
function fileWithLargeLine(name: string): string {
  const lines = [exportHeader(301), ...Array.from({ length: 300 }, (_, i) => exportRecord(crypto.randomUUID(), `small memory number ${i}`)), large()];
  const path = join(s.home, name);
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return path;
}

const stored = async () => json(await cli(["list", "--limit", "500"])).memories.length;

describe("signet import checks every item before it sends any", () => {
  test("a line larger than one request may carry, after 300 that fit: exit 2 naming it and the limit to set, nothing imported", async () => {
    const file = fileWithLargeLine("large.jsonl");
    const r = await cli(["import", file]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    const said = /^signet: (\S+) is (\d+) bytes, more than one request may carry \(daemon\.maxBodyBytes is 1048576\): set daemon\.maxBodyBytes to at least (\d+) \(agent\.yaml\) and restart the daemon \(signet daemon restart\) to import it; nothing was imported$/.exec(r.stderr.trim());
    expect(said?.[1]).toBe(`${file}:302`);
    expect(await stored()).toBe(0);

    // Done as it says, the whole file imports.
    writeFileSync(join(s.dataDir, "agent.yaml"), `${YAML}daemon:\n  maxBodyBytes: ${said![3]}\n`);
    expect((await cli(["daemon", "restart"])).code).toBe(0);
    const again = await cli(["import", file]);
    expect(again.code).toBe(0);
    expect(json(again)).toMatchObject({ imported: 301, rejected: [] });
  }, 60_000);

  test("basic-memory: a note too long after 260 that are not: exit 2 naming it, nothing imported", async () => {
    const notes = join(s.home, "notes");
    mkdirSync(notes);
    for (let i = 0; i < 260; i++) writeFileSync(join(notes, `a-${String(i).padStart(3, "0")}.md`), `- [fact] note number ${i}\n`);
    writeFileSync(join(notes, "z-long.md"), `- [fact] ${"y".repeat(1_000_001)}\n`);
    const r = await cli(["import", "--from", "basic-memory", notes, "--agent", "notes"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`signet: ${join(notes, "z-long.md")} is larger than 1000000 characters: split it to import it; nothing was imported`);
    expect(json(await cli(["list", "--agent", "notes"])).memories).toEqual([]);
  }, 60_000);
});

describe("signet import", () => {
  test("a request refused after batches were imported: the message says what was imported and how to go on", async () => {
    const lean = await sandbox(YAML);
    const leanCli = (args: string[]) => run(args, { env: lean.env, cwd: lean.home });
    expect((await leanCli(["daemon", "start"])).code).toBe(0);
    try {
      // The CLI reads a limit the running daemon does not have (it reads agent.yaml when it starts).
      writeFileSync(join(lean.dataDir, "agent.yaml"), `${YAML}daemon:\n  maxBodyBytes: 4194304\n`);
      const file = fileWithLargeLine("lean.jsonl");
      const r = await leanCli(["import", file]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("request body is larger than the 1048576-byte limit (daemon.maxBodyBytes)");
      expect(r.stderr).toContain(
        `; everything up to ${file}:251 was sent before this (imported 250, skipped 0, duplicates 0, conflicts 0, rejected 0): run the import again to send the rest (what is stored already is skipped)`,
      );
      expect(json(await leanCli(["list", "--limit", "500"])).memories).toHaveLength(250);
    } finally {
      await leanCli(["daemon", "stop"]);
    }
  }, 60_000);

  test("a file that starts with a byte order mark imports", async () => {
    const file = join(s.home, "bom.jsonl");
    const records = [exportRecord(crypto.randomUUID(), "Written by an editor that marks its UTF-8")];
    writeFileSync(file, `\uFEFF${[exportHeader(1), ...records].map((l) => JSON.stringify(l)).join("\r\n")}\r\n`);
    const r = await cli(["import", file]);
    expect(r.stderr).toBe("");
    expect(json(r)).toMatchObject({ imported: 1, rejected: [] });
  });
});
