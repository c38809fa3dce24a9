import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { startServer } from '../../start-server.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('migrate the database, then run the HTTP server')
    .option('--json', 'accepted for symmetry; the server logs JSON lines')
    .action(async () => {
      await startServer(loadConfig());
    });
}
