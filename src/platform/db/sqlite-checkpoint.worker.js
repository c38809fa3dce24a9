// Plain JavaScript on purpose: a worker thread runs a file as is, from src/ under the tests and
// from dist/ in production (tsc copies it there).
//
// Runs SQLite's WAL checkpoints on a thread and connection of their own. A checkpoint fsyncs the
// database file; done by the server's connection (SQLite's default), that fsync blocks the event
// loop of every request. PASSIVE never takes the write lock, so the server's writes go on
// meanwhile; the WAL restarts from its beginning at the first write after a checkpoint caught up.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, intervalMs } = workerData;
const db = new Database(path, { fileMustExist: true });
// A checkpoint copies pages from the WAL to the database file; it needs no page cache of its own.
db.pragma('cache_size = -256');

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
}, intervalMs);

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  process.exit(0);
});
