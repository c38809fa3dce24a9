import type { Command } from 'commander';
import type { Account } from '../../../features/accounts/account.types.js';
import { withServices } from '../context.js';

const accountJson = ({ id, email, displayName, planId }: Pick<Account, 'id' | 'email' | 'displayName'> & { planId?: Account['planId'] }) => ({ id, email, displayName, planId });
const describe = ({ account }: { account: ReturnType<typeof accountJson> }) =>
  `Account ${account.id} <${account.email}> "${account.displayName}", plan ${account.planId}`;

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts');

  accounts
    .command('create')
    .description('create an account')
    .requiredOption('--email <email>', 'login email')
    .option('--name <name>', 'display name')
    .option('--plan <plan>', "free, pro or business (default: DEFAULT_PLAN; business for the instance's first account)")
    .option('--password <password>', 'dashboard password (at least 8 characters)')
    .option('--json', 'print JSON')
    .action((o: { email: string; name?: string; plan?: string; password?: string; json?: boolean }) =>
      withServices(
        o,
        async (s) => ({
          account: accountJson(
            await s.accounts.createAccount({
              email: o.email,
              displayName: o.name,
              planId: o.plan as Account['planId'] | undefined,
              password: o.password,
              // The operator vouches for the address: single sign-on may link to it.
              emailConfirmed: true,
            }),
          ),
        }),
        describe,
      ),
    );

  accounts
    .command('set-plan <account> <plan>')
    .description('change the plan of an account (by ID or email)')
    .option('--json', 'print JSON')
    .action((account: string, plan: string, o: { json?: boolean }) =>
      withServices(o, async (s) => ({ account: accountJson(await s.accounts.setPlan(account, plan)) }), describe),
    );

  accounts
    .command('set-admin <account>')
    .description("make a user (by email, or an account's ID: its owner) the instance admin, who sees the Admin page; --off takes it back")
    .option('--off', 'no longer an admin')
    .option('--json', 'print JSON')
    .action((account: string, o: { off?: boolean; json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const { user, account: owned } = await s.accounts.setAdmin(account, !o.off);
          const named = owned ?? user;
          return { account: { ...accountJson(named), isAdmin: user.isAdmin } };
        },
        ({ account: a }: { account: ReturnType<typeof accountJson> & { isAdmin: boolean } }) =>
          `Account ${a.id} <${a.email}> is ${a.isAdmin ? 'an admin' : 'not an admin'}`,
      ),
    );
}
