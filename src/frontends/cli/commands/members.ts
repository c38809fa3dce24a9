import type { Command } from 'commander';
import type { IssuedInvitation } from '../../../features/members/member.service.js';
import type { Invitation, Member } from '../../../features/members/member.types.js';
import { withServices } from '../context.js';

const memberJson = (m: Member) => ({ userId: m.userId, email: m.email, role: m.role, createdAt: m.createdAt });
const invitationJson = (i: Invitation) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expiresAt });
const issuedJson = (issued: IssuedInvitation) => ({ ...invitationJson(issued.invitation), url: issued.url });

/** `formgate members add|list|set-role|remove` (docs/teams.md, Command line); the account by ID or its owner's email. */
export function registerMembers(program: Command): void {
  const members = program.command('members').description("an account's members, their roles and invitations");

  members
    .command('add <account>')
    .description('adds an existing user (or a new one with --password) at once; invites anyone else')
    .requiredOption('--email <email>', 'the person\'s email')
    .requiredOption('--role <role>', 'admin, member or viewer')
    .option('--password <password>', 'make a login for a new user with this password')
    .option('--json', 'print JSON')
    .action((idOrEmail: string, o: { email: string; role: string; password?: string; json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const account = await s.accounts.getAccountByIdOrEmail(idOrEmail);
          const added = await s.members.add(account.id, { email: o.email, role: o.role, password: o.password });
          return 'member' in added ? { member: memberJson(added.member) } : { invitation: issuedJson(added.invitation) };
        },
        (r) =>
          r.member
            ? `${r.member.email} is now ${r.member.role}.`
            : `Invited ${r.invitation!.email} as ${r.invitation!.role}: ${r.invitation!.url} (until ${r.invitation!.expiresAt})`,
      ),
    );

  members
    .command('list <account>')
    .description('members and open invitations')
    .option('--json', 'print JSON')
    .action((idOrEmail: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const account = await s.accounts.getAccountByIdOrEmail(idOrEmail);
          const [list, invitations] = await Promise.all([s.members.listMembers(account.id), s.members.listInvitations(account.id)]);
          return { members: list.map(memberJson), invitations: invitations.map(invitationJson) };
        },
        (r) =>
          [...r.members.map((m) => `${m.email}  ${m.role}`), ...r.invitations.map((i) => `${i.email}  ${i.role}  (invited, until ${i.expiresAt})`)].join('\n'),
      ),
    );

  members
    .command('set-role <account> <email> <role>')
    .description('changes a member\'s role (not the owner\'s)')
    .option('--json', 'print JSON')
    .action((idOrEmail: string, email: string, role: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const account = await s.accounts.getAccountByIdOrEmail(idOrEmail);
          return { member: memberJson(await s.members.setRole(account.id, { email }, role)) };
        },
        (r) => `${r.member.email} is now ${r.member.role}.`,
      ),
    );

  members
    .command('remove <account> <email>')
    .description('removes a member (not the owner)')
    .option('--json', 'print JSON')
    .action((idOrEmail: string, email: string, o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const account = await s.accounts.getAccountByIdOrEmail(idOrEmail);
          await s.members.remove(account.id, { email });
          return { removed: true as const };
        },
        () => `${email} was removed.`,
      ),
    );
}
