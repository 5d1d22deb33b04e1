// The daemon's stores: the SQLite file in its data directory by default, or the PostgreSQL database
// `storage.url` names, which several daemons may share (docs/deploy.md). Each area's service takes
// its store from here, so the daemon's assembly knows neither store.
import type { Database } from "bun:sqlite";
import type { Config } from "../config/schema";
import { databasePath } from "../config/paths";
import { PostgresAgentStore } from "../core/agents/postgres-store";
import { SqliteAgentStore } from "../core/agents/sqlite-store";
import type { AgentStore } from "../core/agents/store";
import type { InvocationFollower } from "../core/analytics";
import { type DaemonEntry, DaemonRoster } from "../core/cluster/roster";
import { StorePruner } from "../core/cluster/pruner";
import { InvocationFeed, PostgresInvocationStore } from "../core/analytics/postgres-store";
import { SqliteInvocationStore } from "../core/analytics/sqlite-store";
import type { InvocationStore, StoredRow } from "../core/analytics/store";
import { SharedRateLimiter } from "../core/auth/postgres-rate-limit";
import { PostgresTokenStore } from "../core/auth/postgres-token-store";
import { RateLimiter, type RateLimits } from "../core/auth/rate-limit";
import { SqliteTokenStore } from "../core/auth/sqlite-token-store";
import type { TokenStore } from "../core/auth/token-store";
import { PostgresServerRows } from "../core/bridge/postgres-registry";
import type { ServerRows } from "../core/bridge/registry";
import { SqliteServerRows } from "../core/bridge/sqlite-registry";
import { PostgresEmbeddingStore } from "../core/embed/postgres-store";
import { SqliteEmbeddingStore } from "../core/embed/sqlite-store";
import type { EmbeddingStore } from "../core/embed/store";
import { PostgresGraphStore } from "../core/graph/postgres-store";
import { SqliteGraphStore } from "../core/graph/sqlite-store";
import type { GraphStore } from "../core/graph/store";
import { MemoryFeed } from "../core/memory/postgres-feed";
import { PostgresMemoryStore } from "../core/memory/postgres-store";
import { SqliteMemoryStore } from "../core/memory/sqlite-store";
import type { MemoryChange, MemoryStore } from "../core/memory/store";
import { SqliteAccessWrites, type AccessWrites } from "../core/recall/access-log";
import { PostgresAccessWrites } from "../core/recall/postgres-access";
import { PostgresRecallStore } from "../core/recall/postgres-store";
import { SqliteRecallStore } from "../core/recall/sqlite-store";
import type { RecallStore } from "../core/recall/store";
import type { SecretJobStore } from "../core/secrets/job-store";
import { PostgresSecretJobStore } from "../core/secrets/postgres-job-store";
import { SqliteSecretJobStore } from "../core/secrets/sqlite-job-store";
import { PostgresSessionStore } from "../core/sessions/postgres-store";
import { SqliteSessionStore } from "../core/sessions/sqlite-store";
import type { SessionStore } from "../core/sessions/store";
import { SourceFeed } from "../core/sources/postgres-feed";
import { PostgresSourceStore } from "../core/sources/postgres-store";
import { SqliteSourceStore } from "../core/sources/sqlite-store";
import type { ChunkChange, SourceStore } from "../core/sources/store";
import { type ExportReader, postgresExportReader, sqliteExportReader } from "../core/transfer/export";
import { invalidInput } from "../contracts/errors";
import type { BackupResponse } from "../contracts/transfer";
import { backupDatabase } from "../core/transfer/backup";
import { startCheckpointer } from "../db/checkpointer";
import { migrate, type MigrateResult } from "../db/migrate";
import { MEMORY_STORE_CACHE_MIB, openDatabase } from "../db/open";
import { StoreFile } from "../db/store-file";
import { displayedUrl, postgresUrlProblem, STORAGE_URL_KEY } from "../config/storage-url";
import { openMigratedPostgres } from "../db/postgres";
import type { Logger } from "../logger";
import { makeOwnerOnlyDir } from "../os/owner-only-files";
import { join } from "node:path";

/** Connections each daemon keeps to a PostgreSQL store; its listeners (messages, tokens, the feeds) hold one each besides. */
const POSTGRES_POOL = 16;

export interface DaemonStores {
  kind: "sqlite" | "postgres";
  /** Where the data is, for logs and the doctor: the file, or the database's URL without its password. */
  location: string;
  migrated: MigrateResult;
  memory: MemoryStore;
  recall: RecallStore;
  access: AccessWrites;
  sessions: SessionStore;
  agents: AgentStore;
  tokens: TokenStore;
  rateLimits: RateLimits;
  invocations: InvocationStore;
  /** On a shared store: the feed of the calls other daemons record, which the analytics' columns follow. */
  invocationFollower?: (appendStored: (row: StoredRow) => void) => InvocationFollower;
  embeddings: EmbeddingStore;
  graph: GraphStore;
  sources: SourceStore;
  servers: ServerRows;
  secretJobs: SecretJobStore;
  /** The SQLite file itself, for tests that read it directly; null on PostgreSQL. */
  sqlite: Database | null;
  /** A consistent copy of the whole store in a new file at `path` (POST /api/backup). */
  backup(path: string): BackupResponse;
  /** A snapshot of the memories, on a connection of its own, for an export. */
  exportReader(): Promise<ExportReader>;
  /**
   * On a shared store: follows the memories other daemons write, from the feed's head as it was when
   * the store opened (before the indexes loaded), telling `onChange` each one as it is now.
   */
  followMemories?(onChange: (change: MemoryChange) => void, onError: (message: string) => void): Promise<void>;
  /** On a shared store: follows the document chunks other daemons write, likewise from the head read at opening. */
  followSources?(onChange: (change: ChunkChange) => void, onError: (message: string) => void): Promise<void>;
  /** On a shared store: this daemon's row among the daemons sharing it, written while it runs. */
  enrol?(self: Omit<DaemonEntry, "seenAt">, onError: (message: string) => void): DaemonRoster;
  /** A SQLite store: why its file is no longer the one it opened (deleted, replaced), or null. */
  lost?(): string | null;
  close(): Promise<void>;
}

/** SQLite's refusal of the file itself ("file is not a database", "readonly database"), said with the file's path. */
function namingTheFile(path: string, err: unknown): Error {
  if ((err as { name?: string }).name !== "SQLiteError") return err as Error;
  return new Error(`the database ${path} cannot be used: ${(err as Error).message} (check the file and its directory's permissions, or restore it from a backup)`);
}

function openSqlite(config: Config, log: Logger): DaemonStores {
  const path = databasePath(config.dataDir);
  let db: Database;
  try {
    db = openDatabase(path, { cacheMiB: MEMORY_STORE_CACHE_MIB });
  } catch (err) {
    throw namingTheFile(path, err);
  }
  try {
    let migrated: ReturnType<typeof migrate>;
    try {
      migrated = migrate(db);
    } catch (err) {
      throw namingTheFile(path, err);
    }
    const checkpoints = startCheckpointer(db, path, (message) => log.error(message));
    const file = new StoreFile(path);
    return {
      kind: "sqlite",
      location: path,
      migrated,
      lost: () => file.problem(),
      memory: new SqliteMemoryStore(db, () => file.problem()),
      recall: new SqliteRecallStore(db),
      access: new SqliteAccessWrites(db),
      sessions: new SqliteSessionStore(db),
      agents: new SqliteAgentStore(db),
      tokens: new SqliteTokenStore(db),
      rateLimits: new RateLimiter(config.auth.rateLimit),
      invocations: new SqliteInvocationStore(db),
      embeddings: new SqliteEmbeddingStore(db),
      graph: new SqliteGraphStore(db),
      sources: new SqliteSourceStore(db),
      servers: new SqliteServerRows(db),
      secretJobs: new SqliteSecretJobStore(db),
      sqlite: db,
      backup: (to) => backupDatabase(db, to),
      exportReader: async () => sqliteExportReader(path),
      async close() {
        await checkpoints.stop();
        db.close();
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

async function openShared(url: string, config: Config, log: Logger, daemonId: string): Promise<DaemonStores> {
  const shown = displayedUrl(url);
  const cannotOpen = (err: unknown) => new Error(`cannot open the PostgreSQL store ${shown} (storage.url, SIGNET_DATABASE_URL): ${(err as Error).message}`);
  const invalid = postgresUrlProblem(url, STORAGE_URL_KEY);
  if (invalid) throw new Error(invalid);
  // Vectors stay in each daemon's own index, whose files are beside its data, as with SQLite.
  const vectorDir = join(config.dataDir, "memory");
  makeOwnerOnlyDir(vectorDir);
  const { sql, migrated } = await openMigratedPostgres(url, POSTGRES_POOL, cannotOpen);
  try {
    // Read before any index loads: what is written meanwhile comes again through the feed.
    const memoryHead = await MemoryFeed.head(sql);
    const sourceHead = await SourceFeed.head(sql);
    const feeds: { stop(): Promise<void> }[] = [];
    // The change logs, leases and the daemons' rows would grow with every write: pruned every 10 min.
    const pruner = new StorePruner(sql, { onError: (m) => log.warn(m) });
    pruner.start();
    return {
      kind: "postgres",
      location: shown,
      migrated,
      memory: new PostgresMemoryStore(sql),
      recall: new PostgresRecallStore(sql),
      access: new PostgresAccessWrites(sql),
      sessions: new PostgresSessionStore(sql),
      agents: new PostgresAgentStore(sql),
      tokens: new PostgresTokenStore(sql),
      rateLimits: new SharedRateLimiter(sql, config.auth.rateLimit),
      invocations: new PostgresInvocationStore(sql),
      invocationFollower: (onRow) => new InvocationFeed(sql, { onRow }),
      embeddings: new PostgresEmbeddingStore(sql, vectorDir, daemonId),
      graph: new PostgresGraphStore(sql),
      sources: new PostgresSourceStore(sql, vectorDir, daemonId),
      servers: new PostgresServerRows(sql),
      secretJobs: new PostgresSecretJobStore(sql, daemonId),
      sqlite: null,
      backup() {
        throw invalidInput(
          `a backup copies the daemon's SQLite file, and this daemon's store is PostgreSQL (${shown}): back the database up with pg_dump (docs/deploy.md#backups)`,
        );
      },
      exportReader: () => postgresExportReader(sql),
      async followMemories(onChange, onError) {
        const feed = new MemoryFeed(sql, { onChange, onError });
        feeds.push(feed);
        await feed.start(memoryHead);
      },
      async followSources(onChange, onError) {
        const feed = new SourceFeed(sql, { onChange, onError });
        feeds.push(feed);
        await feed.start(sourceHead);
      },
      enrol: (self, onError) => new DaemonRoster(sql, self, { onError }),
      async close() {
        pruner.stop();
        for (const feed of feeds.splice(0)) await feed.stop();
        await sql.close();
      },
    };
  } catch (err) {
    await sql.close();
    throw cannotOpen(err);
  }
}

/** Opens and migrates the store `config` names; `daemonId` marks what is this daemon's in a shared one. */
export async function openStores(config: Config, log: Logger, daemonId: string): Promise<DaemonStores> {
  return config.storage.url ? openShared(config.storage.url, config, log, daemonId) : openSqlite(config, log);
}
