import type { Command } from 'commander';
import { withServices } from '../context.js';

export function registerMail(program: Command): void {
  const mail = program.command('mail').description('email (SMTP_URL)');
  mail
    .command('test <to>')
    .description('send one test message through SMTP_URL')
    .option('--json', 'print JSON')
    .action((to: string, o: { json?: boolean }) =>
      withServices(o, (s) => s.notifications.sendTestEmailNow(to), () => `Test email accepted by the SMTP server for ${to}.`),
    );
}
