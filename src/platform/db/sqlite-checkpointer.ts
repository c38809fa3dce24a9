import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** How often the worker checkpoints; the WAL then holds at most this long's worth of writes. */
const CHECKPOINT_INTERVAL_MS = 200;
/**
 * The server's connection still checkpoints by itself when the WAL reaches this many pages
 * (~40 MB): a bound should the worker fall behind. SQLite's default, restored if the worker dies.
 */
const SAFETY_NET_PAGES = 10_000;
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export interface SqliteCheckpointer {
  /** Stops the worker and closes its connection; resolves once it has exited. */
  stop(): Promise<void>;
}

/** How often the connection's writes are counted until the worker starts. */
const START_POLL_MS = 500;
/**
 * Rows the server's connection changes before the worker starts: more than start-up writes
 * (migrating a new database changes 15, a start on an existing one a handful), fewer than a few
 * dozen submissions do. Until then SQLite's own automatic checkpoint (at 1,000 WAL pages) stays
 * on, and so few writes do not reach it.
 */
export const START_AFTER_CHANGES = 100;

/**
 * Moves the WAL checkpoints of a file database off the event loop (see
 * sqlite-checkpoint.worker.js). The worker thread (an isolate of its own, ~8–10 MB resident)
 * starts once the server has written more than its start-up does, not at start-up: an idle
 * server does not pay for it. The writes are counted with total_changes() (rows changed through
 * this connection, triggers included), not read off the WAL file's size, which a WAL left by an
 * earlier run keeps however much is written.
 */
export function startSqliteCheckpointer(
  sqlite: SqliteDatabase.Database,
  path: string,
  onError: (error: Error) => void,
): SqliteCheckpointer {
  const changesSoFar = sqlite.prepare('select total_changes()').pluck();
  let worker: RunningWorker | undefined;
  let stopped = false;
  const poll = setInterval(() => {
    if (!sqlite.open || (changesSoFar.get() as number) <= START_AFTER_CHANGES) return;
    clearInterval(poll);
    worker = startWorker(sqlite, path, onError);
  }, START_POLL_MS);
  poll.unref();
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(poll);
      await worker?.stop();
    },
  };
}

interface RunningWorker {
  stop(): Promise<void>;
}

function startWorker(sqlite: SqliteDatabase.Database, path: string, onError: (error: Error) => void): RunningWorker {
  sqlite.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  const worker = new Worker(new URL('./sqlite-checkpoint.worker.js', import.meta.url), {
    workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS },
    // The worker only runs one pragma on a timer: a small heap keeps its isolate to a few MB.
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1, codeRangeSizeMb: 2, stackSizeMb: 1 },
  });
  // An operator who forgets close() must not find the process kept alive by a timer thread.
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
      resolve();
    }),
  );
  worker.on('message', (message: { type: 'error'; message: string }) => onError(new Error(message.message)));
  worker.on('error', onError);
  return {
    async stop() {
      stopping = true;
      worker.postMessage('stop');
      await exited;
    },
  };
}
