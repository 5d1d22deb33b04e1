// The code index never indexes the daemon's data directory (docs/code.md#indexing, docs/security.md):
// `signet index` of it or of a folder in it is refused (exit 2, nothing written there); an index of a
// parent of it (the home directory) leaves it out and says so in `failed`, a hard link of one of its
// files included, and drops what an earlier run took of it; the daemon answers no project in it
// (400). `signet index` runs as the CLI runs it, in a process of its own with SIGNET_PATH set.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { codeProjectsPath } from "../../src/config/paths";
import { SignetError } from "../../src/contracts/errors";
import { indexProject } from "../../src/core/code/indexer";
import { recordIndexedProject } from "../../src/core/code/projects";
import { DATA_DIR_REASON } from "../../src/core/files/data-dir";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";

const MAIN = resolve(import.meta.dir, "../../src/main.ts");

let home: string;
let dataDir: string;
let d: TestDaemon;

const refusal = (shown: string, where: "is" | "in") =>
  `${shown} is ${where === "is" ? "the Signet data directory" : `in the Signet data directory ${dataDir}`}, which holds the daemon's secrets (its admin token, instance key and secret store) and is never indexed`;

/** `signet index <path> --json` in a process of its own, for this data directory. */
function signetIndex(path: string): { code: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync([process.execPath, MAIN, "index", path, "--json"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, SIGNET_PATH: dataDir, SIGNET_AUTOSTART: "false" },
    cwd: home,
    stdout: "pipe",
    stderr: "pipe",
    timeout: 60_000,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

beforeAll(async () => {
  home = join(realpathSync(tempDir("signet-code-home-")), "home");
  dataDir = join(home, ".agents");
  mkdirSync(join(dataDir, "hooks"), { recursive: true, mode: 0o700 });
  writeFileSync(join(dataDir, "agent.yaml"), "embedding:\n  provider: none\n");
  d = await startTestDaemon({ dataDir, env: { HOME: home } });
  // Code in the data directory (a harness's hook), holding a secret as a literal.
  writeFileSync(join(dataDir, "hooks", "leak.ts"), `export const LEAKED_TOKEN = "${d.daemon.context.credentials.adminToken}";\nexport function leakyHook(): string {\n  return LEAKED_TOKEN;\n}\n`);
  mkdirSync(join(home, "app"));
  writeFileSync(join(home, "app", "main.ts"), "export function platypusMain(): number {\n  return 1;\n}\n");
});

afterAll(async () => {
  await d.stop();
});

describe("signet index", () => {
  test("of the data directory, of a folder in it, or through a link to it: refused, exit 2, nothing written there", () => {
    symlinkSync(dataDir, join(home, "agents-link"));
    const cases: [string, string][] = [
      [dataDir, refusal(dataDir, "is")],
      [join(dataDir, "hooks"), refusal(join(dataDir, "hooks"), "in")],
      // The CLI resolves links before indexing: the project is the real folder.
      [join(home, "agents-link"), refusal(dataDir, "is")],
    ];
    for (const [path, message] of cases) {
      const r = signetIndex(path);
      expect([path, r.code, r.stdout]).toEqual([path, 2, ""]);
      expect(r.stderr).toContain(message);
    }
    expect(existsSync(join(dataDir, ".graphiq"))).toBe(false);
    expect(existsSync(join(dataDir, "hooks", ".graphiq"))).toBe(false);
  }, 60_000);

  test("indexProject itself refuses, with invalid_input, whatever spelling of the data directory it is given", async () => {
    for (const given of [dataDir, `${dataDir}/`, join(home, "agents-link")]) {
      const err = await indexProject(join(dataDir, "hooks"), undefined, given).catch((e) => e);
      expect(err).toBeInstanceOf(SignetError);
      expect([given, err.code, err.message]).toEqual([given, "invalid_input", refusal(join(dataDir, "hooks"), "in")]);
    }
    expect(existsSync(join(dataDir, "hooks", ".graphiq"))).toBe(false);
  });

  test("of the home directory: the data directory is left out and said so; a hard link of its file too", () => {
    linkSync(join(dataDir, "hooks", "leak.ts"), join(home, "app", "linked.ts"));
    const r = signetIndex(home);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout);
    expect(run.project).toBe(home);
    expect(run.parsed).toEqual(["app/main.ts"]);
    expect(run.failed).toEqual([
      { path: ".agents", reason: DATA_DIR_REASON },
      { path: "app/linked.ts", reason: DATA_DIR_REASON },
    ]);
  }, 60_000);
});

describe("an index that took the data directory before", () => {
  test("the next run drops it; the daemon answers no project in the data directory (400), and nothing of it", async () => {
    // An earlier version: the home directory indexed with nothing kept out, recorded for this data directory.
    const old = await indexProject(home, undefined, "/nonexistent/data-dir");
    expect(old.parsed).toContain(".agents/hooks/leak.ts");
    await indexProject(join(dataDir, "hooks"), undefined, "/nonexistent/data-dir");
    const projects = codeProjectsPath(dataDir);
    recordIndexedProject(projects, { project: home, indexedAt: new Date().toISOString() });
    // Indexed last: what a request naming no project is answered from.
    recordIndexedProject(projects, { project: join(dataDir, "hooks"), indexedAt: new Date(Date.now() + 1000).toISOString() });

    const search = (project: string) =>
      d.fetch("/api/code/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "leaky hook token", project }) });
    // The project in the data directory: refused on every route, and when it is the one indexed last.
    const inside = join(dataDir, "hooks");
    const expected = { error: `project: ${refusal(inside, "in")}`, code: "invalid_input" };
    const refused = await search(inside);
    expect([refused.status, await refused.json()]).toEqual([400, expected]);
    for (const path of [`/api/code/status?project=${encodeURIComponent(inside)}`, `/api/code/doctor?project=${encodeURIComponent(inside)}`, "/api/code/status"]) {
      const res = await d.fetch(path);
      expect([path, res.status, await res.json()]).toEqual([path, 400, expected]);
    }

    // The home directory's status leaves the data directory out of what is new on disk.
    const status = (await (await d.fetch(`/api/code/status?project=${encodeURIComponent(home)}`)).json()) as any;
    expect(status.stale.added.filter((p: string) => p.startsWith(".agents/"))).toEqual([]);

    // The next run drops what the earlier one took of it.
    const again = JSON.parse(signetIndex(home).stdout);
    expect(again.removed.sort()).toEqual([".agents/hooks/leak.ts", "app/linked.ts"]);
    const hits = (await (await search(home)).json()) as any;
    expect(hits.hits.filter((h: { path: string }) => h.path.startsWith(".agents/"))).toEqual([]);
  }, 60_000);
});
