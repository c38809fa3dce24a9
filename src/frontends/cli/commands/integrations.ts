import type { Command } from 'commander';
import type { Integration } from '../../../features/integrations/integration.types.js';
import { withServices } from '../context.js';

/** An integration in CLI output: what identifies it, never its secrets (docs/integrations.md). */
const summary = (i: Integration) => ({ id: i.id, formId: i.formId, kind: i.kind, name: i.name, enabled: i.enabled, createdAt: i.createdAt });

export function registerIntegrations(program: Command): void {
  const integrations = program.command('integrations').description('chat and push integrations of a form (Slack, Discord, Telegram, Teams, ntfy)');

  integrations
    .command('add <formId>')
    .description('add an integration; its URL and token are not shown again')
    .requiredOption('--kind <kind>', 'slack, discord, telegram, teams or ntfy')
    .option('--url <url>', 'the webhook URL (slack, discord, teams) or topic URL (ntfy)')
    .option('--token <token>', 'the bot token (telegram) or access token (ntfy)')
    .option('--chat-id <chatId>', 'the chat ID (telegram)')
    .option('--name <name>', 'a label')
    .option('--json', 'print JSON')
    .action((formId: string, o: { kind: string; url?: string; token?: string; chatId?: string; name?: string; json?: boolean }) =>
      withServices(
        o,
        async (s) => ({ integration: summary(await s.integrations.addIntegration(formId, o)) }),
        (r) => `Integration ${r.integration.id} (${r.integration.kind}, ${r.integration.name}) added to form ${r.integration.formId}.`,
      ),
    );

  integrations
    .command('list <formId>')
    .description("list a form's integrations")
    .option('--json', 'print JSON')
    .action((formId: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => ({ integrations: (await s.integrations.listIntegrations(formId)).map(summary) }),
        (r) =>
          r.integrations.length === 0
            ? 'No integrations.'
            : r.integrations.map((i) => `${i.id}  ${i.kind}  ${i.enabled ? 'enabled ' : 'disabled'}  ${i.name}`).join('\n'),
      ),
    );

  integrations
    .command('remove <integrationId>')
    .description('delete an integration and what is queued for it')
    .option('--json', 'print JSON')
    .action((id: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          await s.integrations.removeIntegration(id);
          return { deleted: true };
        },
        () => `Integration ${id} deleted.`,
      ),
    );

  integrations
    .command('test <integrationId>')
    .description('send a sample message now')
    .option('--json', 'print JSON')
    .action((id: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const result = await s.integrations.sendTest(id);
          if (!result.sent) throw new Error(`the platform did not accept the test message: ${result.error}`);
          return { sent: true };
        },
        () => `Test message sent through integration ${id}.`,
      ),
    );
}
