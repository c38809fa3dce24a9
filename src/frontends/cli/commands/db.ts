import type { Command } from 'commander';
import { createDatabase } from '../../../platform/db/database.js';
import type { CopyProgress, CopyResult } from '../../../features/database-copy/database-copy.types.js';
import { sameDatabase } from '../../../features/database-copy/database-copy.service.js';
import { describeDatabase } from '../../../platform/startup/describe.js';
import { withServices } from '../context.js';

/** Per-table counts of both sides, one line each, then the total and the speed. */
function countsTable(result: CopyResult): string {
  const width = Math.max(...result.tables.map((t) => t.table.length), 5);
  const lines = result.tables.map(
    (t) => `  ${t.table.padEnd(width)}  ${String(t.source).padStart(10)}  ${String(t.target).padStart(10)}${t.source === t.target ? '' : '  DIFFERS'}`,
  );
  const perSecond = Math.round(result.rows / Math.max(result.durationMs / 1000, 0.001));
  return [`  ${'table'.padEnd(width)}  ${'source'.padStart(10)}  ${'target'.padStart(10)}`, ...lines, `${result.rows} rows in ${(result.durationMs / 1000).toFixed(1)} s (${perSecond} rows/s).`].join('\n');
}

/** A progress line rewritten in place; only on a terminal, never into a pipe or a log. */
function terminalProgress(): ((progress: CopyProgress) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let lastTable = '';
  return ({ table, copied, total }) => {
    if (lastTable && table !== lastTable) process.stderr.write('\n');
    lastTable = table;
    const percent = total === 0 ? 100 : Math.floor((copied / total) * 100);
    process.stderr.write(`\r\x1b[2K${table}: ${copied}/${total} (${percent}%)`);
  };
}

export function registerDb(program: Command): void {
  const db = program.command('db').description('move the data between databases');

  db.command('copy')
    .description('copy everything in the configured database (DATABASE_URL) into another, migrated and empty: SQLite to PostgreSQL or back')
    .requiredOption('--to <databaseUrl>', 'the target: postgres://… or sqlite:<path>, migrated (`formgate migrate`) and empty')
    .option('--json', 'print JSON')
    .action((o: { to: string; json?: boolean }) => {
      // The JSON document is `{ copied }` (docs/operations.md); the words also give the source's counts.
      let full: CopyResult | undefined;
      return withServices(
        o,
        async (s, config) => {
          if (sameDatabase(config.databaseUrl, o.to)) throw new Error('The target is the configured database itself.');
          const target = createDatabase(o.to, { poolSize: 1 });
          let result: CopyResult;
          try {
            const progress = terminalProgress();
            result = await s.databaseCopy.copyTo(target, progress ? { onProgress: progress } : {});
            if (progress) process.stderr.write('\n');
            if (!result.matched) {
              process.stderr.write(`${countsTable(result)}\n`);
              throw new Error(`The row counts differ (marked DIFFERS above): the copy into ${describeDatabase(o.to)} was rolled back.`);
            }
          } finally {
            await target.close();
          }
          full = result;
          return { copied: Object.fromEntries(result.tables.map((t) => [t.table, t.target])) };
        },
        () => `${countsTable(full!)}\nCopied into ${describeDatabase(o.to)}. Point DATABASE_URL at it and start Formgate.`,
      );
    });
}
