import { resolve } from 'node:path';
import type { DatabaseHandle, Dialect, Executor } from '../../platform/db/database.js';
import {
  countRows,
  insertRows,
  listAppliedMigrations,
  listTables,
  openRowReader,
  resetPostgresSequences,
  tableHasRows,
} from './database-copy.repository.js';
import type { CopyProgress, CopyResult, TableCount, TableInfo } from './database-copy.types.js';
import { orderByForeignKeys } from './table-order.js';
import { toTargetValue } from './values.js';

/**
 * State one database keeps for itself, rebuilt from the copied rows: SQLite's search indexer
 * watermark (its FTS5 index is a virtual table, never listed). Neither copied nor required empty.
 */
const LOCAL_TABLES = new Set(['submissions_fts_watermark']);

/** Both databases allow at least this many parameters in one statement (SQLite 32766, PostgreSQL 65535). */
const MAX_PARAMETERS = 30_000;
const MAX_ROWS_PER_BATCH = 1000;

export class CopyRefusedError extends Error {}

export interface CopyOptions {
  /** Rows per batch (read and insert); default as many as fit in one statement, at most 1000. */
  batchSize?: number;
  onProgress?: (progress: CopyProgress) => void;
}

/** Thrown inside the target's transaction so that a copy whose counts differ leaves nothing behind. */
class CountMismatch extends Error {
  constructor(readonly counts: TableCount[]) {
    super('row counts differ');
  }
}

/** Whether two DATABASE_URLs name the same database (a copy onto itself would refuse anyway, but say why). */
export function sameDatabase(a: string, b: string): boolean {
  const sqlitePath = (url: string) => (url.startsWith('sqlite:') ? resolve(url.slice('sqlite:'.length)) : undefined);
  return a === b || (sqlitePath(a) !== undefined && sqlitePath(a) === sqlitePath(b));
}

/**
 * `formgate db copy` (docs/operations.md): everything in one database copied into another,
 * SQLite or PostgreSQL either way, from one snapshot of the source, into a migrated empty target,
 * in one transaction there (a refusal or a failure leaves the target as it was). The tables are
 * the migrated schema's, found by asking the database, and every column is copied as it is, so a
 * table added by a later migration is copied without a change here.
 */
export class DatabaseCopyService {
  constructor(private readonly source: DatabaseHandle) {}

  async copyTo(target: DatabaseHandle, options: CopyOptions = {}): Promise<CopyResult> {
    const started = performance.now();
    await this.checkMigrations(target);
    const tables = await this.plan(target);
    const sourceTransaction = this.source.db.transaction().setAccessMode('read only');
    const snapshot = this.source.dialect === 'postgres' ? sourceTransaction.setIsolationLevel('repeatable read') : sourceTransaction;
    return snapshot.execute(async (source) => {
      const totals = new Map<string, number>();
      for (const table of tables) totals.set(table.name, await countRows(source, table.name));
      try {
        const counts = await target.db.transaction().execute(async (trx) => {
          const nonEmpty: string[] = [];
          for (const table of tables) if (await tableHasRows(trx, table.name)) nonEmpty.push(table.name);
          if (nonEmpty.length > 0) {
            throw new CopyRefusedError(`The target is not empty (rows in ${nonEmpty.join(', ')}); nothing was written. Copy into a new, migrated database.`);
          }
          for (const table of tables) await this.copyTable(source, trx, target.dialect, table, totals.get(table.name)!, options);
          if (target.dialect === 'postgres') await resetPostgresSequences(trx);
          const result: TableCount[] = [];
          for (const table of tables) result.push({ table: table.name, source: totals.get(table.name)!, target: await countRows(trx, table.name) });
          if (result.some((c) => c.source !== c.target)) throw new CountMismatch(result);
          return result;
        });
        return { tables: counts, matched: true, rows: sum(counts), durationMs: performance.now() - started };
      } catch (err) {
        if (!(err instanceof CountMismatch)) throw err;
        return { tables: err.counts, matched: false, rows: sum(err.counts), durationMs: performance.now() - started };
      }
    });
  }

  /** Both sides on the same migrations: the same tables and columns, and no half-migrated target. */
  private async checkMigrations(target: DatabaseHandle): Promise<void> {
    const [source, destination] = await Promise.all([
      listAppliedMigrations(this.source.db, this.source.dialect),
      listAppliedMigrations(target.db, target.dialect),
    ]);
    if (!source) throw new CopyRefusedError('The source database was never migrated: there is nothing to copy.');
    if (!destination) {
      throw new CopyRefusedError('The target database is not migrated: run `formgate migrate` with DATABASE_URL set to it first; nothing was written.');
    }
    const missing = source.filter((name) => !destination.includes(name));
    const extra = destination.filter((name) => !source.includes(name));
    if (missing.length > 0 || extra.length > 0) {
      const parts = [missing.length > 0 ? `the target lacks ${missing.join(', ')}` : '', extra.length > 0 ? `the source lacks ${extra.join(', ')}` : ''];
      throw new CopyRefusedError(
        `The two databases are not on the same migrations (${parts.filter(Boolean).join('; ')}): migrate both with this version first; nothing was written.`,
      );
    }
  }

  /** The tables to copy, in foreign-key order; refuses a table or column only one side has. */
  private async plan(target: DatabaseHandle): Promise<TableInfo[]> {
    const [sourceTables, targetTables] = await Promise.all([listTables(this.source.db, this.source.dialect), listTables(target.db, target.dialect)]);
    const targetByName = new Map(targetTables.map((t) => [t.name, t]));
    const sourceNames = new Set(sourceTables.map((t) => t.name));
    const onlyInTarget = targetTables.filter((t) => !sourceNames.has(t.name) && !LOCAL_TABLES.has(t.name)).map((t) => t.name);
    if (onlyInTarget.length > 0) throw new CopyRefusedError(`Only the target has the tables ${onlyInTarget.join(', ')}: nothing was written.`);
    const tables: TableInfo[] = [];
    for (const table of sourceTables) {
      if (LOCAL_TABLES.has(table.name)) continue;
      const other = targetByName.get(table.name);
      if (!other) throw new CopyRefusedError(`The target has no table ${table.name}: nothing was written.`);
      const columns = (t: TableInfo) => t.columns.map((c) => c.name).sort().join(', ');
      if (columns(table) !== columns(other)) {
        throw new CopyRefusedError(`The table ${table.name} has the columns (${columns(table)}) in the source but (${columns(other)}) in the target: nothing was written.`);
      }
      // A foreign key one database keeps and the other dropped (a trigger does its work there)
      // still orders the rows.
      tables.push({ ...table, columns: other.columns, references: [...new Set([...table.references, ...other.references])] });
    }
    return orderByForeignKeys(tables);
  }

  private async copyTable(source: Executor, target: Executor, targetDialect: Dialect, table: TableInfo, total: number, options: CopyOptions): Promise<void> {
    const batchSize = options.batchSize ?? Math.max(1, Math.min(MAX_ROWS_PER_BATCH, Math.floor(MAX_PARAMETERS / table.columns.length)));
    const columns = table.columns.map((c) => c.name);
    let copied = 0;
    options.onProgress?.({ table: table.name, copied, total });
    const reader = await openRowReader(source, this.source.dialect, table);
    try {
      for (;;) {
        const rows = await reader.next(batchSize);
        if (rows.length === 0) break;
        const converted = rows.map((row) => table.columns.map((c) => toTargetValue(row[c.name], c.type, targetDialect)));
        await insertRows(target, targetDialect, table.name, columns, converted);
        copied += rows.length;
        options.onProgress?.({ table: table.name, copied, total });
        if (rows.length < batchSize) break;
      }
    } finally {
      // After a failure the transaction is lost anyway; its own error is the one to report.
      await reader.close().catch(() => {});
    }
  }
}

function sum(counts: TableCount[]): number {
  return counts.reduce((total, c) => total + c.target, 0);
}
