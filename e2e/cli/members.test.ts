import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { createAccount } from '../../test/helpers/factories.js';
import { runCli, runCliJson } from '../../test/helpers/server-process.js';

let t: TestApp;
let env: Record<string, string>;
const unique = () => `c-${randomBase62(8).toLowerCase()}@example.com`;

beforeAll(async () => {
  t = await startTestApp({ env: { BASE_URL: 'https://forms.example.com' } });
  env = { DATABASE_URL: t.database.url, BASE_URL: 'https://forms.example.com', LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  await t?.close();
});

describe('formgate members', () => {
  it('adds, invites, lists, changes a role and removes, with the audit log naming the CLI', async () => {
    const account = await createAccount(t.services, { email: unique(), password: 'correct horse battery' });
    const existing = await createAccount(t.services, { email: unique() });
    const newcomer = unique();
    const invited = unique();

    const added = await runCliJson(['members', 'add', account.email, '--email', existing.email, '--role', 'admin'], env);
    expect(added).toEqual({ member: { userId: existing.id, email: existing.email, role: 'admin', createdAt: expect.any(String) } });
    const withPassword = await runCliJson(['members', 'add', account.id, '--email', newcomer, '--role', 'viewer', '--password', 'a long password'], env);
    expect(withPassword.member).toMatchObject({ email: newcomer, role: 'viewer' });
    expect(await t.services.accounts.verifyCredentials(newcomer, 'a long password')).toMatchObject({ email: newcomer });
    const invitation = await runCliJson(['members', 'add', account.id, '--email', invited, '--role', 'member'], env);
    expect(invitation).toEqual({ invitation: { id: expect.any(String), email: invited, role: 'member', expiresAt: expect.any(String), url: expect.stringMatching(/^https:\/\/forms\.example\.com\/dashboard\/invite\/[A-Za-z0-9_-]{40,}$/) } });

    const listed = await runCliJson(['members', 'list', account.email], env);
    expect(listed.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [account.email, 'owner'],
      [existing.email, 'admin'],
      [newcomer, 'viewer'],
    ]);
    expect(listed.invitations).toEqual([{ id: invitation.invitation.id, email: invited, role: 'member', expiresAt: invitation.invitation.expiresAt }]);

    expect(await runCliJson(['members', 'set-role', account.id, newcomer, 'member'], env)).toMatchObject({ member: { email: newcomer, role: 'member' } });
    expect(await runCliJson(['members', 'remove', account.id, existing.email], env)).toEqual({ removed: true });
    expect(await t.services.members.findRole(account.id, existing.id)).toBeUndefined();

    // The owner is neither demoted nor removed, and an unknown role is refused: non-zero exit, stderr.
    const demote = await runCli(['members', 'set-role', account.id, account.email, 'viewer', '--json'], env);
    expect(demote.code).not.toBe(0);
    expect(demote.stderr).toContain('owner');
    const badRole = await runCli(['members', 'add', account.id, '--email', unique(), '--role', 'owner', '--json'], env);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stdout).toBe('');

    const actions = (await t.services.audit.listEvents(account.id)).map((e) => [e.action, e.actor.type]);
    expect(actions).toEqual([
      ['member.removed', 'cli'],
      ['member.role_changed', 'cli'],
      ['invitation.created', 'cli'],
      ['member.added', 'cli'],
      ['member.added', 'cli'],
    ]);
  }, 60_000);
});
