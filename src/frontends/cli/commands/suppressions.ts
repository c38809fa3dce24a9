import type { Command } from 'commander';
import { withServices } from '../context.js';

export function registerSuppressions(program: Command): void {
  const suppressions = program.command('suppressions').description('the suppression list: addresses that get no confirmation email');
  suppressions
    .command('remove <email>')
    .description('let an address (unsubscribed, or bounced) receive confirmation emails again')
    .option('--json', 'print JSON')
    .action((email: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => ({ removed: await s.suppressions.remove(email) }),
        (r) => (r.removed ? `${email} removed from the suppression list.` : `${email} was not on the suppression list.`),
      ),
    );
}
