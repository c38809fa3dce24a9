import { InvalidArgumentError, type Command } from 'commander';
import { AUDIT_MAX_LIMIT } from '../../../features/audit/audit.service.js';
import { withServices } from '../context.js';

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT) throw new InvalidArgumentError(`must be a whole number from 1 to ${AUDIT_MAX_LIMIT}`);
  return limit;
}

export function registerAudit(program: Command): void {
  program
    .command('audit <account>')
    .description("an account's audit log, newest first (account: ID or email)")
    .option('--limit <n>', `how many events (1-${AUDIT_MAX_LIMIT})`, parseLimit, 50)
    .option('--json', 'print JSON')
    .action((idOrEmail: string, o: { limit: number; json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const account = await s.accounts.getAccountByIdOrEmail(idOrEmail);
          return { events: await s.audit.listEvents(account.id, { limit: o.limit }) };
        },
        (r) =>
          r.events.length === 0
            ? 'No events.'
            : r.events
                .map((e) => `${e.at}  ${e.actor.label}${e.address ? ` (${e.address})` : ''}  ${e.action}${e.target ? `  ${e.target.type} ${e.target.id}` : ''}`)
                .join('\n'),
      ),
    );
}
