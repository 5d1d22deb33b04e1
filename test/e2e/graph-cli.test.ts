// The knowledge graph through the compiled CLI against a real daemon: `signet graph`, `signet
// dream`, their output and exit codes, and extraction that a kill -9 does not lose.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acrossKill9, json, run, sandbox, type Sandbox, startDaemonIn } from "../helpers/binary";
import { eventually } from "../helpers/wait";

let s: Sandbox;
const cli = (args: string[]) => run(args, { env: s.env });

beforeAll(async () => {
  s = await sandbox("embedding:\n  provider: none\n");
  await startDaemonIn(s);
});

afterAll(async () => {
  await cli(["daemon", "stop"]);
});

describe("signet graph and signet dream", () => {
  test("entities appear as memories mention them; a pass merges and supersedes; show tells current from old", async () => {
    for (const [content, project] of [
      ["Dana Weber leads the payments team.", "payments"],
      ["Dana approved the payments rollout.", "payments"],
      ["The staging DB is heron-7.", "orders"],
    ]) {
      expect((await cli(["remember", content!, "--project", project!])).code).toBe(0);
    }
    await Bun.sleep(5); // a later createdAt for the newer evidence
    expect((await cli(["remember", "The staging DB is now heron-8.", "--project", "orders"])).code).toBe(0);
    const listed = async () => json(await cli(["graph", "entities", "--limit", "50"])).entities as { name: string }[];
    expect(await eventually(async () => (await listed()).length >= 5)).toBe(true);

    const dry = json(await cli(["dream", "--dry-run"]));
    expect(dry).toMatchObject({ id: null, dryRun: true, counts: { merge: 1, supersede: 1 } });
    const pass = json(await cli(["dream"]));
    expect(pass.id).toBeGreaterThan(0);
    expect(pass.counts).toMatchObject({ merge: 1, supersede: 1 });

    const dana = await cli(["graph", "entities", "dana", "--pretty"]);
    expect(dana.code).toBe(0);
    expect(dana.stdout).toMatch(/^name\s+type\s+mentions\s+also called\s+id$/m);
    expect(dana.stdout).toMatch(/^Dana Weber\s+person\s+2\s+Dana\s+ent_[0-9a-f]{16}$/m);

    const show = await cli(["graph", "show", "staging db", "--pretty"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("general.is = heron-8  [current, since");
    expect(show.stdout).toContain("general.is = heron-7  [old, superseded");
  });

  test("what does not exist exits 1, bad flags exit 2, each with a message that names it", async () => {
    const missing = await cli(["graph", "show", "nobody-at-all"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no entity "nobody-at-all"');
    const bad = await cli(["graph", "entities", "--limit", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("limit");
  });
});

describe("extraction across kill -9", () => {
  test("memories acknowledged just before a kill -9 are in the graph after the restart", async () => {
    const names = Array.from({ length: 40 }, (_, i) => `Person${String.fromCharCode(65 + (i % 26))}${i} Example`);
    await acrossKill9(
      await sandbox("embedding:\n  provider: none\n"),
      async (url) => {
        for (const res of await Promise.all(
          names.map((name) =>
            fetch(`${url}/api/memory/remember`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ content: `${name} reviews the schema changes.` }),
            }),
          ),
        )) {
          expect(res.status).toBe(201);
        }
      },
      async (url) => {
        const found = async () => {
          const body = (await (await fetch(`${url}/api/graph/entities?query=example&limit=200`)).json()) as { entities: { name: string }[] };
          return body.entities.map((e) => e.name).sort();
        };
        expect(await eventually(async () => (await found()).length === names.length)).toBe(true);
        expect(await found()).toEqual([...names].sort());
      },
    );
  });
});
