// The daemons sharing a PostgreSQL store (core/cluster/roster.ts): a daemon's row is listed while it
// beats, this daemon first; one not written for three beats drops out; a stop removes the row; a
// store that cannot be written is said once, not at every beat.
import { describe, expect, test } from "bun:test";
import { DaemonRoster } from "../../src/core/cluster/roster";
import { postgresDatabases } from "../helpers/postgres-databases";

const postgres = postgresDatabases();
const self = (id: string) => ({ id, url: `http://10.0.0.${id.length}:3850`, version: "1.0.0", startedAt: "2026-01-01T00:00:00.000Z" });

describe.skipIf(!postgres.available)("the daemon roster", () => {
  test("lists the daemons seen in the last three beats, this one first; a stopped one is gone", async () => {
    const connect = await postgres.database({ max: 2 });
    let now = Date.parse("2026-06-01T12:00:00Z");
    const clock = { now: () => now, beatMs: 1_000 };
    const [a, b, c] = [new DaemonRoster(connect(), self("d_b"), clock), new DaemonRoster(connect(), self("d_a"), clock), new DaemonRoster(connect(), self("d_ccc"), clock)];
    for (const r of [a, b, c]) await r.start();
    expect((await a.list()).map((d) => d.id)).toEqual(["d_b", "d_a", "d_ccc"]);
    // c stops beating (its process died): three beats later only a and b are listed.
    await c.stop();
    now += 2_000;
    await (a as unknown as { beat(): Promise<void> }).beat();
    await (b as unknown as { beat(): Promise<void> }).beat();
    expect((await b.list()).map((d) => d.id)).toEqual(["d_a", "d_b"]);
    now += 5_000;
    // b's row is stale; a lists itself even when its own last write is older still.
    await (b as unknown as { beat(): Promise<void> }).beat();
    expect((await a.list()).map((d) => d.id)).toEqual(["d_b", "d_a"]);
    await a.stop();
    await b.stop();
    expect((await connect()`SELECT count(*)::int AS n FROM daemons`)[0].n).toBe(0);
  });

  test("a store that cannot be written is said once", async () => {
    const connect = await postgres.database({ max: 1 });
    const sql = connect();
    const said: string[] = [];
    const roster = new DaemonRoster(sql, self("d_x"), { onError: (m) => said.push(m) });
    await sql.close();
    await roster.start();
    await (roster as unknown as { beat(): Promise<void> }).beat();
    await roster.stop();
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("daemon roster: writing this daemon's row failed");
  });
});
