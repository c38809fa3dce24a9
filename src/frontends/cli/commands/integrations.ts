import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Integration } from '../../../features/integrations/integration.types.js';
import type { KindField, KindInput } from '../../../features/integrations/service-kind.js';
import { findServiceKind, INTEGRATION_KINDS, SERVICE_KINDS } from '../../../features/integrations/service-kinds.js';
import { withServices } from '../context.js';

/** The key commander keeps an option's value under (`--key-file <f>` → keyFile). */
const optionKey = (field: KindField) => new Option(field.option).attributeName();

/** Every service kind's options, once each (two kinds may share one, as `--token`), minus the chat kinds' own. */
function serviceOptions(): Option[] {
  const seen = new Set(['--url', '--token', '--chat-id', '--name']);
  const options: Option[] = [];
  for (const kind of SERVICE_KINDS) {
    for (const field of kind.fields) {
      const option = new Option(field.option, `${field.label} (${SERVICE_KINDS.filter((k) => k.fields.some((f) => f.option === field.option)).map((k) => k.kind).join(', ')})`);
      if (seen.has(option.long!)) continue;
      seen.add(option.long!);
      if (field.repeated) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
      options.push(option);
    }
  }
  return options;
}

/** A service kind's settings from the options: a file's content for an option that names one. */
function serviceInput(kind: string, o: Record<string, unknown>): KindInput {
  const input: KindInput = {};
  for (const field of findServiceKind(kind)?.fields ?? []) {
    const value = o[optionKey(field)] as string | string[] | undefined;
    if (value === undefined) continue;
    input[field.name] = field.fromFile && typeof value === 'string' ? readFileSync(value, 'utf8') : value;
  }
  return input;
}

/** An integration in CLI output: what identifies it, never its secrets (docs/integrations.md). */
const summary = (i: Integration) => ({ id: i.id, formId: i.formId, kind: i.kind, name: i.name, enabled: i.enabled, createdAt: i.createdAt });

export function registerIntegrations(program: Command): void {
  const labels = ['Slack, Discord, Telegram, Teams, ntfy', ...SERVICE_KINDS.map((k) => k.label)].join(', ');
  const integrations = program.command('integrations').description(`integrations of a form (${labels})`);

  const add = integrations
    .command('add <formId>')
    .description('add an integration; its URLs, tokens and keys are not shown again')
    .requiredOption('--kind <kind>', INTEGRATION_KINDS.join(', '))
    .option('--url <url>', 'the webhook URL (slack, discord, teams), topic URL (ntfy) or listmonk address')
    .option('--token <token>', 'the bot token (telegram), access token (ntfy) or API token')
    .option('--chat-id <chatId>', 'the chat ID (telegram)')
    .option('--name <name>', 'a label')
    .option('--json', 'print JSON');
  for (const option of serviceOptions()) add.addOption(option);
  add.action((formId: string, o: { kind: string; url?: string; token?: string; chatId?: string; name?: string; json?: boolean } & Record<string, unknown>) =>
      withServices(
        o,
        async (s) => {
          const { kind, url, token, chatId, name } = o;
          const input = findServiceKind(kind) ? { kind, name, ...serviceInput(kind, o) } : { kind, url, token, chatId, name };
          return { integration: summary(await s.integrations.addIntegration(formId, input)) };
        },
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
