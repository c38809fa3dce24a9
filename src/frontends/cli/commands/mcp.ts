import type { Command } from 'commander';
import pino from 'pino';
import { loadConfig, readSecretFile } from '../../../platform/config.js';
import { createDatabase } from '../../../platform/db/database.js';
import { migrateToLatest } from '../../../platform/db/migrate.js';
import { createServices } from '../../../services.js';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve the MCP server on stdin/stdout for one API key (FORMGATE_API_KEY, FORMGATE_API_KEY_FILE or --key-file)')
    .option('--key-file <path>', 'a file holding the API key (fgk_…), instead of FORMGATE_API_KEY')
    .action(async (o: { keyFile?: string }) => {
      const config = loadConfig();
      const key = o.keyFile !== undefined ? readSecretFile(o.keyFile, '--key-file') : config.mcpApiKey;
      if (!key) throw new Error('An API key is required: set FORMGATE_API_KEY (or FORMGATE_API_KEY_FILE), or pass --key-file <path>.');
      const handle = createDatabase(config.databaseUrl, { poolSize: 2 });
      // stdout carries the protocol: every log line goes to stderr.
      const logger = pino({ level: 'warn' }, pino.destination(2));
      const services = createServices(handle, config, logger);
      try {
        await migrateToLatest(handle);
        const auth = await services.apiKeys.authenticate(key.trim());
        if (!auth) throw new Error('The API key is malformed, unknown or revoked.');
        // Imported here so that the other commands do not load the MCP SDK.
        const [{ StdioServerTransport }, { buildMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('../../mcp/mcp.server.js')]);
        const server = buildMcpServer(services, { accountId: auth.accountId, keyId: auth.keyId, scope: auth.scope }, (err) => logger.error({ err }, 'MCP tool failed'));
        const closed = new Promise<void>((resolve) => {
          server.server.onclose = resolve;
          // The client ends the conversation by closing our stdin.
          process.stdin.once('end', () => void server.close());
        });
        await server.connect(new StdioServerTransport());
        await closed;
      } finally {
        // Never started, so this only closes what the tools opened.
        await services.outbox.stop();
        await handle.close();
      }
    });
}
