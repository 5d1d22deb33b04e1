// Transcript search as recall's keyword leg searches memories, on both stores: a CJK word inside an
// unspaced run (which the full-text tokenizers keep as one token) is found through the run's bigrams,
// a code identifier through its parts, and a store whose transcripts were stored before they had
// index terms (an upgrade's migration, or a store copy) finds them too. The daemon's SQLite file and a
// real PostgreSQL (a throwaway cluster).
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { migrate } from "../../src/db/migrate";
import { MIGRATIONS } from "../../src/db/migrations";
import { openDatabase } from "../../src/db/open";
import { migratePostgres, openPostgres } from "../../src/db/postgres";
import { POSTGRES_MIGRATIONS } from "../../src/db/postgres-migrations";
import { PostgresSessionStore } from "../../src/core/sessions/postgres-store";
import { SqliteSessionStore } from "../../src/core/sessions/sqlite-store";
import type { SessionStore } from "../../src/core/sessions/store";
import { postgresDatabases } from "../helpers/postgres-databases";
import { migratedDatabase } from "../helpers/sqlite";
import { tempDir } from "../helpers/temp-cleanup";

const postgres = postgresDatabases();

const AT = "2026-01-01T00:00:00.000Z";
const DEPLOY = "user: 明日のデプロイは中止です\nassistant: 了解しました。getHTTPResponse のテストも止めます";
const OTHER = "user: 昨日の会議の議事録を送ってください";

/** Opens session `key` of agent ada with `transcript`. */
async function withTranscript(store: SessionStore, key: string, transcript: string): Promise<void> {
  const row = await store.open({ key, agentId: "ada", harness: "claude-code", project: null, parentKey: null, at: AT }, false);
  await store.setTranscript(row!.seq, transcript);
}

const found = async (store: SessionStore, query: string) => (await store.searchTranscripts(query, { agentId: "ada" }, 10)).map((h) => h.key);

/** What both stores must answer for the two transcripts above, stored as `deploy` and `minutes`. */
async function expectFound(store: SessionStore): Promise<void> {
  expect(await found(store, "デプロイ")).toEqual(["deploy"]);
  expect(await found(store, "中止")).toEqual(["deploy"]);
  // The whole run first (its bigram 日の is in the other transcript too: an OR of terms, as in recall).
  expect((await found(store, "明日のデプロイは中止です"))[0]).toBe("deploy");
  expect(await found(store, "議事録")).toEqual(["minutes"]);
  expect(await found(store, "キャンセル")).toEqual([]);
  // A code identifier by its parts, as recall finds one.
  expect(await found(store, "http response")).toEqual(["deploy"]);
  // The excerpt shows where the CJK word was found.
  const [hit] = await store.searchTranscripts("デプロイ", { agentId: "ada" }, 10);
  expect(hit!.excerpt).toContain("デプロイ");
  expect(await store.searchTranscripts("デプロイ", { agentId: "bob" }, 10)).toEqual([]);
}

const STORES: { name: string; available: boolean; open(): Promise<SessionStore> }[] = [
  { name: "SQLite", available: true, open: async () => new SqliteSessionStore(migratedDatabase()) },
  { name: "PostgreSQL", available: postgres.available, open: async () => new PostgresSessionStore((await postgres.database({ max: 2 }))()) },
];

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`transcript search on ${kind.name}`, () => {
    test("a CJK word inside an unspaced run is found, and shown in the excerpt; an identifier by its parts", async () => {
      const store = await kind.open();
      await withTranscript(store, "deploy", DEPLOY);
      await withTranscript(store, "minutes", OTHER);
      await expectFound(store);
    });

    test("a long transcript's excerpt is the text around the CJK word, wherever it is", async () => {
      const store = await kind.open();
      const filler = "作業ログ".repeat(300);
      await withTranscript(store, "long", `user: ${filler}\nuser: ${filler}本番のロールバックを確認${filler}`);
      const [hit] = await store.searchTranscripts("ロールバック", { agentId: "ada" }, 10);
      expect(hit!.key).toBe("long");
      expect(hit!.excerpt).toContain("本番のロールバックを確認");
      expect(hit!.excerpt.length).toBeLessThan(200);
    });
  });
}

describe("a SQLite store from before transcripts had index terms", () => {
  /** The daemon's file migrated up to (not including) the transcripts' terms. */
  function before(): Database {
    const db = openDatabase(join(tempDir(), "memories.db"));
    migrate(db, MIGRATIONS.filter((m) => m.name < "017_session_transcript_terms"));
    return db;
  }

  test("after the migration its transcripts are found by the CJK words inside them", async () => {
    const db = before();
    for (const [seq, key, text] of [[1, "deploy", DEPLOY], [2, "minutes", OTHER]] as const) {
      db.query("INSERT INTO sessions (seq, key, agent_id, harness, started_at, updated_at) VALUES (?, ?, 'ada', 'claude-code', ?, ?)").run(seq, key, AT, AT);
      db.query("INSERT INTO session_transcripts_fts (rowid, content) VALUES (?, ?)").run(seq, text);
    }
    expect(migrate(db).applied).toContain("017_session_transcript_terms");
    const store = new SqliteSessionStore(db);
    expect(await store.transcript(1)).toBe(DEPLOY);
    await expectFound(store);
    // The terms were stored: another store object on the file has nothing left to index.
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM session_transcripts_fts WHERE terms IS NULL").get()!.n).toBe(0);
  });
});

describe.skipIf(!postgres.available)("a PostgreSQL store from before transcripts had index terms", () => {
  test("after the migration its transcripts are found by the CJK words inside them, by every daemon", async () => {
    const url = await postgres.emptyDatabase();
    const sql = openPostgres(url, { max: 2 });
    const other = openPostgres(url, { max: 2 });
    try {
      await sql`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`;
      for (const m of POSTGRES_MIGRATIONS.filter((m) => m.name < "011_session_transcript_terms")) {
        await sql.unsafe(m.sql);
        await sql`INSERT INTO schema_migrations VALUES (${m.version}, ${m.name}, ${AT})`;
      }
      for (const [seq, key, text] of [[1, "deploy", DEPLOY], [2, "minutes", OTHER]] as const) {
        await sql`INSERT INTO sessions (seq, key, agent_id, harness, started_at, updated_at) VALUES (${seq}, ${key}, 'ada', 'claude-code', ${AT}, ${AT})`;
        await sql`INSERT INTO session_transcripts (session_seq, content) VALUES (${seq}, ${text})`;
      }
      expect((await migratePostgres(sql)).applied).toContain("011_session_transcript_terms");
      // Two daemons' stores, searching at once: each indexes what has no terms yet, neither fails.
      const [one, two] = [new PostgresSessionStore(sql), new PostgresSessionStore(other)];
      await Promise.all([found(one, "デプロイ"), found(two, "デプロイ")]);
      await expectFound(one);
      await expectFound(two);
      expect(await one.transcript(1)).toBe(DEPLOY);
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM session_transcripts WHERE terms IS NULL`;
      expect(n).toBe(0);
    } finally {
      await sql.close();
      await other.close();
    }
  });
});
