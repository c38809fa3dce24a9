import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';
import { startSqliteCheckpointer } from './sqlite-checkpointer.js';

export type Dialect = 'sqlite' | 'postgres';

/** A Kysely instance or an open transaction on it: repositories accept either. */
export type Executor = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Present on PostgreSQL, for what the query builder does not cover (LISTEN/NOTIFY). */
  readonly pgPool: pg.Pool | undefined;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** SQLite file databases: checkpoint the WAL on a worker thread (the server does; the CLI need not). */
  checkpointInBackground?: boolean;
  /** Told when the background checkpointer fails (the connection then checkpoints by itself). */
  onBackgroundError?: (error: Error) => void;
}

/**
 * Drivers are loaded on first use: a deployment runs on one database, and the other driver's
 * modules would cost ~15 MB of idle memory for nothing.
 */
const requireDriver = createRequire(import.meta.url);
const loadSqlite = () => requireDriver('better-sqlite3') as typeof SqliteDatabase;
const loadPg = () => requireDriver('pg') as typeof pg;

export function createDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), options);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options.poolSize ?? 10);
  throw new Error(`Unsupported DATABASE_URL: ${url.split(':')[0]}:…`);
}

function openSqlite(path: string, options: DatabaseOptions): DatabaseHandle {
  if (path === '') throw new Error('DATABASE_URL sqlite: needs a path, e.g. sqlite:./data/formgate.db');
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const Sqlite = loadSqlite();
  const sqlite = new Sqlite(path);
  // WAL lets readers run beside the single writer; NORMAL is durable across process crashes
  // (only an OS crash or power loss can lose the last commits), the usual WAL pairing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // 8 MiB of page cache (better-sqlite3 defaults to 16): inserts touch only the last pages of
  // each index (time-ordered keys), and reads of older pages come from the OS's file cache.
  sqlite.pragma('cache_size = -8192');
  const checkpointer =
    options.checkpointInBackground && path !== ':memory:'
      ? startSqliteCheckpointer(sqlite, path, options.onBackgroundError ?? (() => {}))
      : undefined;
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    db,
    dialect: 'sqlite',
    pgPool: undefined,
    close: async () => {
      // The server's connection closes last: the last connection to close checkpoints and removes the WAL.
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

const STATEMENT_CACHE_SIZE = 200;

/**
 * Kysely prepares every query anew; with better-sqlite3 that is a large share of a small
 * query's cost. Statements are reused by SQL text (queries are parameterised, so the set of
 * texts is small), oldest dropped first.
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

function openPostgres(url: string, poolSize: number): DatabaseHandle {
  const pool = new (loadPg().Pool)({ connectionString: url, max: poolSize });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    pgPool: pool,
    close: () => db.destroy(),
  };
}
