import { mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type KyselyConfig,
  type SqliteDialectConfig,
  type Transaction,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';
import { startSqliteCheckpointer } from './sqlite-checkpointer.js';

export type Dialect = 'sqlite' | 'postgres';

/** A Kysely instance or an open transaction on it: repositories accept either. */
export type Executor = Kysely<Database>;

/**
 * An open transaction. A function that must run inside its caller's transaction takes this, not
 * Executor, so passing the plain database is a compile error.
 */
export type Trx = Transaction<Database>;

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Present on PostgreSQL, for what the query builder does not cover (LISTEN/NOTIFY). */
  readonly pgPool: pg.Pool | undefined;
  /**
   * Writes a consistent copy of the database to `file` while other connections (the running
   * server) keep writing; returns its size in bytes. SQLite only: on PostgreSQL it throws,
   * naming pg_dump.
   */
  backupTo(file: string): Promise<number>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL pool size. */
  poolSize?: number;
  /**
   * PostgreSQL: how long a query may go unanswered before it fails (client side, so it also fires
   * when the server or the network stops answering; the server cancels the statement itself at
   * the same bound). Default 30 s; tests lower it.
   */
  queryTimeoutMs?: number;
  /** PostgreSQL: how long getting a connection may take (new connection or a free pool slot). Default 10 s. */
  connectTimeoutMs?: number;
  /** SQLite file databases: checkpoint the WAL on a worker thread (the server does; the CLI need not). */
  checkpointInBackground?: boolean;
  /** Told when the background checkpointer fails (the connection then checkpoints by itself). */
  onBackgroundError?: (error: Error) => void;
  /** Sees every query as compiled and sent (tests EXPLAIN the exact SQL the code runs). */
  onQuery?: (query: CompiledQuery) => void;
}

function queryLog(options: DatabaseOptions): Pick<KyselyConfig, 'log'> {
  const { onQuery } = options;
  if (!onQuery) return {};
  return {
    log: (event) => {
      if (event.level === 'query') onQuery(event.query);
    },
  };
}

/** A UNIQUE constraint refused the row, on either database. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL reports a primary key's conflict as any unique one's; SQLite names it apart.
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
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
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
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
  const db = new Kysely<Database>({ dialect: new SqliteImmediateDialect({ database: withStatementCache(sqlite) }), ...queryLog(options) });
  return {
    db,
    dialect: 'sqlite',
    pgPool: undefined,
    backupTo: async (file) => {
      if (path !== ':memory:' && resolve(file) === resolve(path)) throw new Error('The backup file cannot be the database itself.');
      // SQLite's online backup API. After a first small step, the rest is copied in one step
      // (one read transaction: WAL readers never block the server's writes); in small steps, a
      // write by another process between two steps would restart the copy, again and again
      // under a steady load.
      await sqlite.backup(file, { progress: () => 0x7fffffff });
      return statSync(file).size;
    },
    close: async () => {
      // The server's connection closes last: the last connection to close checkpoints and removes the WAL.
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * Transactions on SQLite begin IMMEDIATE, taking the write lock first. A deferred transaction
 * that reads before it writes holds a snapshot, and cannot take the write lock once another
 * connection (the server, beside a CLI command, or the other way round) has committed after that
 * snapshot or is writing: SQLite answers SQLITE_BUSY at once, since waiting could not help it,
 * and busy_timeout does not apply. BEGIN IMMEDIATE waits up to busy_timeout for the lock instead,
 * before any read. A transaction declared read only (`setAccessMode('read only')`) stays deferred:
 * it needs no lock, and WAL readers never wait for a writer.
 */
class SqliteImmediateDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(settings?.accessMode === 'read only' ? 'begin deferred' : 'begin immediate'));
  }
}

class SqliteImmediateDialect extends SqliteDialect {
  readonly #driverConfig: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#driverConfig = config;
  }

  override createDriver(): Driver {
    return new SqliteImmediateDriver(this.#driverConfig);
  }
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

function openPostgres(url: string, options: DatabaseOptions): DatabaseHandle {
  const queryTimeoutMs = options.queryTimeoutMs ?? 30_000;
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    // A peer that vanished without closing the connection is noticed by the kernel.
    keepAlive: true,
  });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: discardingTimedOutClients(pool) }), ...queryLog(options) });
  return {
    db,
    dialect: 'postgres',
    pgPool: pool,
    backupTo: async () => {
      throw new Error(
        'formgate backup copies SQLite databases; for PostgreSQL use pg_dump (for example: pg_dump --format=custom --file=formgate.dump "$DATABASE_URL"), restore with pg_restore.',
      );
    },
    close: () => db.destroy(),
  };
}

/**
 * pg answers a query that timed out client side with an error but leaves the connection waiting
 * for the server's reply, and Kysely then hands the connection back to the pool: every later
 * query on it would queue behind the lost one. A connection whose query timed out or broke is
 * therefore destroyed on release instead of reused.
 */
function discardingTimedOutClients(pool: pg.Pool) {
  return {
    end: () => pool.end(),
    async connect() {
      const client = await pool.connect();
      let broken = false;
      // pg-pool listens for errors only on idle clients; a checked-out client whose backend is
      // terminated between two queries would otherwise emit an unhandled 'error' and end the process.
      const onError = () => {
        broken = true;
      };
      client.on('error', onError);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      return {
        query: async (...args: unknown[]) => {
          try {
            return await query(...args);
          } catch (err) {
            if (isConnectionFault(err)) broken = true;
            throw err;
          }
        },
        release: () => {
          client.off('error', onError);
          client.release(broken);
        },
      } as unknown as pg.PoolClient;
    },
  };
}

/** PostgreSQL chose this transaction to break a deadlock and rolled it back: running it again may succeed. */
export function isDeadlockVictim(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '40P01';
}

/**
 * Runs a whole transaction, and once more if PostgreSQL rolled it back to break a deadlock (the
 * other side has then gone on). `transaction` must be safe to run again: it reads what it acts
 * on inside the transaction, or from state that only its commit changes.
 */
export async function onceMoreIfDeadlocked<T>(transaction: () => Promise<T>): Promise<T> {
  try {
    return await transaction();
  } catch (err) {
    if (!isDeadlockVictim(err)) throw err;
    return transaction();
  }
}

/** The failure is the connection's (timeout, reset, terminated backend), not the statement's. */
export function isConnectionFault(err: unknown): boolean {
  const e = err as { message?: string; code?: string } | null;
  // No SQLSTATE (pg's own errors: timeout, connection ended) or a connection-class SQLSTATE.
  return !e?.code || /^(57P0|08)/.test(e.code);
}
