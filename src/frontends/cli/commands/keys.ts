import type { Command } from 'commander';
import { withServices } from '../context.js';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create <account>')
    .description('create an API key for an account (by ID or email); the key is shown once')
    .option('--name <name>', 'a label for the key', 'API key')
    .option('--scope <scope>', 'read (the management API, MCP read tools), triage (also marks spam / not spam over MCP) or manage (also writes forms, integrations and hooks)', 'read')
    .option('--json', 'print JSON')
    .action((account: string, o: { name: string; scope: string; json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const owner = await s.accounts.getAccountByIdOrEmail(account);
          const { key, apiKey } = await s.apiKeys.createApiKey(owner.id, o.name, o.scope);
          return { key: { id: key.id, name: key.name, createdAt: key.createdAt, scope: key.scope }, apiKey };
        },
        (r) => `Key ${r.key.id} (${r.key.name}, scope ${r.key.scope}) created. Store it now, it is not shown again:\n${r.apiKey}`,
      ),
    );

  keys
    .command('revoke <keyId>')
    .description('revoke an API key; it stops working on the next request')
    .option('--json', 'print JSON')
    .action((keyId: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          await s.apiKeys.revokeApiKey(keyId);
          return { revoked: true };
        },
        () => `Key ${keyId} revoked.`,
      ),
    );
}
