import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { INVITATIONS_PER_DAY } from '../../src/features/members/member.service.js';
import type { Role } from '../../src/features/members/member.types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount } from '../helpers/factories.js';

// PostgreSQL only (the sqlite project leaves out *.postgres.test.ts): SQLite runs one writing
// transaction at a time, so requests sent together there cannot interleave their checks and
// writes. On PostgreSQL they do, and every check a team change makes must still hold when it
// commits. Requests go together over real HTTP, several rounds each, as an interleaving that
// breaks a rule need not happen in every round.

const PASSWORD = 'correct horse battery';
const ROUNDS = 3;
let t: TestApp;

const unique = (tag = 'm') => `${tag}-${randomBase62(8).toLowerCase()}@example.com`;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function signIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t.url);
  await client.get('/dashboard/login');
  const { res } = await client.post('/dashboard/login', { email, password: PASSWORD });
  expect(res.status).toBe(303);
  // A page of the account: its CSRF token is the one every parallel POST carries.
  await client.get('/dashboard/members');
  return client;
}

/** An account whose owner and members all have a login; `roles` are the members besides the owner. */
async function team(roles: Role[]) {
  const account = await createAccount(t.services, { email: unique('owner'), password: PASSWORD, planId: 'pro' });
  const members = [];
  for (const role of roles) {
    const added = await t.services.members.add(account.id, { email: unique(role), role, password: PASSWORD });
    if (!('member' in added)) throw new Error('the member was invited instead of added');
    members.push(added.member);
  }
  return { account, members };
}

const ownersOf = async (accountId: string) => (await t.services.members.listMembers(accountId)).filter((m) => m.role === 'owner').map((m) => m.email);
const statuses = (answers: Array<{ res: Response }>) => answers.map((a) => a.res.status).sort();

describe('team changes sent together on PostgreSQL', () => {
  it('two hand-overs at once: one succeeds, the other is refused, and the account has one owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { account, members } = await team(['admin', 'admin']);
      const owner = await signIn(account.email);
      const answers = await Promise.all(members.map((m) => owner.post('/dashboard/members/transfer', { email: m.email, confirm: '1' })));
      expect(statuses(answers)).toEqual([303, 403]);
      const owners = await ownersOf(account.id);
      expect(owners).toHaveLength(1);
      expect(members.map((m) => m.email)).toContain(owners[0]);
      const events = (await t.services.audit.listEvents(account.id)).filter((e) => e.action === 'ownership.transferred');
      expect(events).toHaveLength(1);
    }
  });

  it(`${INVITATIONS_PER_DAY + 10} invitations at once make exactly ${INVITATIONS_PER_DAY}; the rest are refused as rate limited`, async () => {
    const { account } = await team([]);
    const owner = await signIn(account.email);
    const answers = await Promise.all(
      Array.from({ length: INVITATIONS_PER_DAY + 10 }, () => owner.post('/dashboard/members/invitations', { email: unique('invited'), role: 'viewer' })),
    );
    const counts = Object.fromEntries([303, 429].map((status) => [status, answers.filter((a) => a.res.status === status).length]));
    expect(counts).toEqual({ 303: INVITATIONS_PER_DAY, 429: 10 });
    const rows = await t.handle.db.selectFrom('invitations').select('id').where('account_id', '=', account.id).execute();
    expect(rows).toHaveLength(INVITATIONS_PER_DAY);
  });

  it('a hand-over to a member while an admin removes or demotes them, or they leave: always exactly one owner', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      for (const change of ['remove', 'demote', 'leave'] as const) {
        const { account, members } = await team(['admin', 'admin']);
        const [target, acting] = members as [(typeof members)[0], (typeof members)[0]];
        const [owner, admin, targetClient] = await Promise.all([signIn(account.email), signIn(acting.email), signIn(target.email)]);
        const other =
          change === 'remove'
            ? admin.post(`/dashboard/members/${target.userId}/remove`, { confirm: '1' })
            : change === 'demote'
              ? admin.post(`/dashboard/members/${target.userId}/role`, { role: 'viewer' })
              : targetClient.post('/dashboard/members/leave', { confirm: '1' });
        const [handover, changed] = await Promise.all([owner.post('/dashboard/members/transfer', { email: target.email, confirm: '1' }), other]);
        // Whichever commits first, the other sees it: a member removed or gone cannot be handed
        // the account, and the owner cannot be removed, demoted or leave. A viewer can be handed it.
        const owners = await ownersOf(account.id);
        expect(owners, change).toHaveLength(1);
        expect(handover.res.status === 303 ? target.email : account.email).toBe(owners[0]);
        if (change === 'demote') expect(handover.res.status === 303 || changed.res.status === 303, change).toBe(true);
        else expect(statuses([handover, changed]).filter((status) => status === 303), change).toHaveLength(1);
      }
    }
  });

  it('two admins removing each other at once: the one removed first can no longer remove anyone', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { account, members } = await team(['admin', 'admin']);
      const [x, y] = members as [(typeof members)[0], (typeof members)[0]];
      const [asX, asY] = await Promise.all([signIn(x.email), signIn(y.email)]);
      const answers = await Promise.all([asX.post(`/dashboard/members/${y.userId}/remove`, { confirm: '1' }), asY.post(`/dashboard/members/${x.userId}/remove`, { confirm: '1' })]);
      expect(statuses(answers)).toEqual([303, 403]);
      const left = (await t.services.members.listMembers(account.id)).map((m) => m.email);
      expect(left).toHaveLength(2);
      expect(left).toContain(account.email);
    }
  });

  it('one invitation accepted twice at once joins once', async () => {
    const { account } = await team([]);
    const guestEmail = unique('guest');
    await createAccount(t.services, { email: guestEmail, password: PASSWORD });
    const { url } = await t.services.members.invite(account.id, { email: guestEmail, role: 'member' });
    const guest = await signIn(guestEmail);
    const path = `${new URL(url).pathname}/accept`;
    const answers = await Promise.all([guest.post(path, {}), guest.post(path, {})]);
    expect(answers.filter((a) => a.res.status === 303)).toHaveLength(1);
    expect(answers.filter((a) => a.res.status === 400 || a.res.status === 410)).toHaveLength(1);
    expect((await t.services.members.listMembers(account.id)).map((m) => m.email)).toEqual([account.email, guestEmail]);
    const accepted = (await t.services.audit.listEvents(account.id)).filter((e) => e.action === 'invitation.accepted');
    expect(accepted).toHaveLength(1);
  });
});
