import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Executor } from '../../platform/db/database.js';
import { openDedicatedConnection, type DedicatedConnection } from '../../platform/db/dedicated-connection.js';
import { BatchedWrites } from '../../platform/lib/batched-writes.js';
import { listenForQueuedWork, notifyQueuedWork } from './outbox-upkeep.repository.js';

/**
 * Least time between two NOTIFYs of one process. Other instances only need to hear that
 * something was queued, not what: their dispatcher's pump claims whatever is there.
 */
export const ANNOUNCE_GAP_MS = 50;

/**
 * PostgreSQL: tells the other instances' dispatchers, after a commit, that outbound work was
 * queued, with at most one NOTIFY per ANNOUNCE_GAP_MS (and one in flight), each in a statement of
 * its own. Not inside the submit statement: PostgreSQL serializes the commits of every
 * transaction that notified on one cluster-wide lock held across the commit's WAL flush, so
 * submit batches that notified could not share a flush, and the submit p99 under outbound work
 * would grow (figures: docs/performance.md#notify-after-commit).
 * A NOTIFY that fails is only logged: the other instances' 2 s poll finds the work anyway.
 */
export class QueuedWorkAnnouncer {
  private readonly notifications: BatchedWrites<undefined>;
  private last: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(db: Executor, logger: FastifyBaseLogger) {
    // BatchedWrites gives the coalescing: announcements made while one is waiting or being sent
    // share the next NOTIFY, which starts no sooner than the gap after the previous one.
    this.notifications = new BatchedWrites(
      async () => {
        if (this.closed) return;
        await notifyQueuedWork(db).catch((err: unknown) => logger.warn({ err }, 'NOTIFY of queued outbound work failed; other instances poll for it'));
      },
      { minGapMs: ANNOUNCE_GAP_MS },
    );
  }

  /** After a commit that queued work. */
  announce(): void {
    if (!this.closed) this.last = this.notifications.write(undefined);
  }

  /** Nothing more is sent; resolves once the NOTIFY in flight, if any, has finished. */
  async close(): Promise<void> {
    this.closed = true;
    await this.last;
  }
}

/**
 * PostgreSQL: hears the other instances' announcements on a connection of its own, taken from the
 * pool for as long as the process lives. A lost connection is opened again at the dispatcher's
 * next poll, which also finds whatever was queued meanwhile.
 */
export class QueuedWorkListener {
  private connection: DedicatedConnection | undefined;
  private opening = false;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: FastifyBaseLogger,
    private readonly onQueued: () => void,
  ) {}

  /** Starts listening, unless it listens already or is opening its connection. */
  async listen(): Promise<void> {
    if (this.connection?.held || this.opening || this.closed) return;
    this.opening = true;
    let connection: DedicatedConnection | undefined;
    try {
      connection = await openDedicatedConnection(this.pool, { onNotification: this.onQueued });
      await listenForQueuedWork(connection.db);
      // Closed meanwhile: nothing may keep the connection.
      if (this.closed) connection.release();
      else if (connection.held) this.connection = connection;
    } catch (err) {
      connection?.release();
      this.logger.warn({ err }, 'LISTEN for outbound work failed; polling instead');
    } finally {
      this.opening = false;
    }
  }

  close(): void {
    this.closed = true;
    this.connection?.release();
    this.connection = undefined;
  }
}
