import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../../platform/config.js';
import { createDatabase } from '../../../platform/db/database.js';

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description('write a consistent copy of the SQLite database to <file>, also while the server runs (PostgreSQL: use pg_dump)')
    .argument('<file>', 'where to write the copy (replaced if it exists)')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      const config = loadConfig();
      // Not migrated first: a backup copies the database as it is.
      const handle = createDatabase(config.databaseUrl, { poolSize: 1 });
      try {
        const bytes = await handle.backupTo(file);
        const result = { backup: file, bytes };
        process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `Backup written to ${resolve(file)} (${bytes} bytes).\n`);
      } finally {
        await handle.close();
      }
    });
}
