// A SQLite store whose file is deleted or replaced while the daemon runs (src/db/store-file.ts): SQLite
// would go on writing to the file it opened, which the next start never sees, so a 201 would be a
// lie. Every request but /health is then a 503 saying what happened and what to do, a write caught
// in the same commit is not acknowledged, and /health says the store is not ok.
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { startDaemon } from "../../src/server/daemon";
import { databasePath } from "../../src/config/paths";
import { startTestDaemon, tempDir, type TestDaemon } from "../helpers/daemon";
import { call } from "../helpers/memory-api";

/** Each test breaks its daemon's store: a daemon of its own. */
async function withDaemon(body: (td: TestDaemon) => Promise<void>): Promise<void> {
  const td = await startTestDaemon();
  try {
    await body(td);
  } finally {
    await td.stop();
  }
}

describe("the store's file, changed under the daemon", () => {
  for (const [what, change] of [
    ["deleted", (path: string) => rmSync(path)],
    ["replaced by another file", (path: string) => {
      copyFileSync(path, `${path}.copy`);
      renameSync(`${path}.copy`, path);
    }],
  ] as const) {
    test(`${what}: writes are refused with 503 naming it, /health says the store is not ok`, () =>
      withDaemon(async (td) => {
      expect((await call(td, "POST", "/api/memory/remember", { body: { content: "before the change" } })).status).toBe(201);
      change(databasePath(td.dataDir));
      const refused = await call(td, "POST", "/api/memory/remember", { body: { content: "after the change" } });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 503, code: "unavailable" });
      expect(refused.body.error).toContain(`the database file ${databasePath(td.dataDir)} was ${what}`);
      expect(refused.body.error).toContain("signet daemon restart");
      expect((await call(td, "GET", "/api/memories")).status).toBe(503);
      const health = await call(td, "GET", "/health", { headers: td.ownerHeaders });
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: "degraded", db: { ok: false, memories: null } });
      }));
  }

  test("a write in the commit that finds the file gone is not acknowledged", () =>
    withDaemon(async (td) => {
    const store = td.daemon.context.stores;
    const path = databasePath(td.dataDir);
    // The file goes between the request's check and its commit.
    const writing = store.memory.write({}, () => {
      rmSync(path);
      return { answer: "written" };
    });
    await expect(writing).rejects.toThrow("was deleted while the daemon ran: this write was not kept");
    }));
});

test("a database file that is not one stops the start naming the file", async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, "memory"), { recursive: true });
  writeFileSync(databasePath(dataDir), Buffer.alloc(65_536, 7));
  const config = loadConfig({ env: { SIGNET_PATH: dataDir, HOME: dataDir } });
  await expect(startDaemon({ ...config, daemon: { ...config.daemon, port: 0 }, embedding: { ...config.embedding, provider: "none" } })).rejects.toThrow(
    `the database ${databasePath(dataDir)} cannot be used: file is not a database`,
  );
});
