// The parsing threads of an index run (src/core/code/parse-pool.ts): however many threads take files
// from the shared counter, every file comes back exactly once with the same facts as when this thread
// parses them all, and a file that cannot be read comes back as a failure without stopping the run.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ParseJob, ParseResult } from "../../src/core/code/parse-file";
import { parseInWorkers } from "../../src/core/code/parse-pool";
import { languageOf } from "../../src/core/code/languages";
import { listSourceFiles } from "../../src/core/code/ignore";
import { codeProjectCopy } from "../helpers/code-project";

const project = codeProjectCopy();
afterAll(() => rmSync(dirname(project), { recursive: true, force: true }));

// The fixture's files (five languages) twelve times over, and one that is not there.
const files = listSourceFiles(project).map((f) => f.path);
const jobs: ParseJob[] = Array.from({ length: 12 }, () => files)
  .flat()
  .map((path, id) => ({ id, path: join(project, path), language: languageOf(path)! }));
jobs.push({ id: jobs.length, path: join(project, "gone.ts"), language: "typescript" });

async function parsed(threads: number): Promise<Map<number, ParseResult>> {
  const results = new Map<number, ParseResult>();
  await parseInWorkers(
    jobs,
    (result) => {
      expect(results.has(result.id)).toBe(false);
      results.set(result.id, result);
    },
    threads,
  );
  return results;
}

test("three threads return every file once, with the facts one thread finds", async () => {
  const alone = await parsed(1);
  const shared = await parsed(3);
  expect(shared.size).toBe(jobs.length);
  expect([...shared.keys()].sort((a, b) => a - b)).toEqual(jobs.map((j) => j.id));
  for (const [id, result] of alone) expect(shared.get(id)).toEqual(result);
  const symbols = (r: ParseResult | undefined) => (r && "facts" in r ? r.facts.symbols.map((s) => s.name) : []);
  expect(symbols(shared.get(files.indexOf("py/worker.py")))).toEqual(["MAX_RETRIES", "QUEUE", "Worker", "run", "handle"]);
  expect(shared.get(jobs.length - 1)).toMatchObject({ failure: expect.stringContaining("unreadable") });
});
