import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { isConnectionFault, type Executor } from './database.js';
import type { Database } from './schema.js';

/**
 * One PostgreSQL connection held for as long as its owner lives, for what is tied to a session:
 * LISTEN, session-level advisory locks. Statements go through `db`, so repositories run them like
 * any other.
 */
export interface DedicatedConnection {
  /** The query builder on this one connection (no transactions: it is shared by its callers). */
  readonly db: Executor;
  /** False once released or lost (the session's LISTEN and locks are gone with it). */
  readonly held: boolean;
  release(): void;
}

export interface DedicatedConnectionOptions {
  /** A NOTIFY arrived for a channel this connection LISTENs to. */
  onNotification?: () => void;
  /** The connection broke; it is released and its session state is gone. */
  onLost?: () => void;
}

/** Takes a connection out of the pool until release() or a connection fault; released exactly once. */
export async function openDedicatedConnection(pool: pg.Pool, options: DedicatedConnectionOptions = {}): Promise<DedicatedConnection> {
  const client = await pool.connect();
  let held = true;
  const release = (broken: boolean) => {
    if (!held) return;
    held = false;
    client.release(broken);
    if (broken) options.onLost?.();
  };
  client.on('error', () => release(true));
  if (options.onNotification) client.on('notification', options.onNotification);
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  // Kysely hands its connection back after every query; this one stays out of the pool.
  const single = {
    query: async (...args: unknown[]) => {
      if (!held) throw new Error('the dedicated database connection was released');
      try {
        return await query(...args);
      } catch (err) {
        if (isConnectionFault(err)) release(true);
        throw err;
      }
    },
    release: () => {},
  } as unknown as pg.PoolClient;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: async () => single, end: async () => {} } }) });
  return {
    db,
    get held() {
      return held;
    },
    release: () => release(false),
  };
}
