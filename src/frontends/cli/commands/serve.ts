import type { Command } from 'commander';
import { loadConfig } from '../../../platform/config.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('migrate the database, then run the HTTP server')
    .option('--json', 'accepted for symmetry; the server logs JSON lines')
    .action(async () => {
      // Loaded here: the HTTP server's modules (Fastify, its plugins, every route) are a quarter of
      // a one-shot command's start-up, which only needs the services.
      const { startServer } = await import('../../../start-server.js');
      await startServer(loadConfig());
    });
}
