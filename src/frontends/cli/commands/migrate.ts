import type { Command } from 'commander';
import { withServices } from '../context.js';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (a no-op when it is)')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) =>
      // withServices migrates before it runs anything.
      withServices(options, async () => ({ migrated: true }), () => 'Database is up to date.'),
    );
}
