import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { expectCsrfRefused } from '../helpers/csrf.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { waitFor } from '../helpers/wait.js';

// A team has a name its owner sets (its owner's email until then); invitations name the team
// and who invites; joining says so and opens the team joined.
const PASSWORD = 'correct horse battery';
const unique = (name: string) => `${name}-${randomBase62(6).toLowerCase()}@example.com`;

let sink: SmtpSink;
let t: AppUnderTest;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, MAIL_FROM: 'formgate@example.com' } });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

async function signIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  await client.get('/dashboard/members');
  return client;
}

describe('the team name', () => {
  it("is the owner's email until the owner names it; only the owner may; it is audited", async () => {
    const owner = await createAccount(t.services, { email: unique('owner'), password: PASSWORD, displayName: 'Ada Owner' });
    expect((await t.services.accounts.getAccount(owner.id)).teamName).toBe(owner.email);
    const adminEmail = unique('admin');
    await t.services.members.add(owner.id, { email: adminEmail, role: 'admin', password: PASSWORD });

    const client = await signIn(owner.email);
    const page = await client.get('/dashboard/members');
    expect(page.html).toContain(`Members of <span id="team-name">${owner.email}</span>`);
    await expectCsrfRefused(client, '/dashboard/members/team-name', { teamName: 'Never' });
    await client.get('/dashboard/members');
    expect((await client.post('/dashboard/members/team-name', { teamName: '  Acme <Support>  ' })).res.status).toBe(303);
    expect((await t.services.accounts.getAccount(owner.id)).teamName).toBe('Acme <Support>');
    expect((await client.get('/dashboard/members')).html).toContain('Members of <span id="team-name">Acme &lt;Support&gt;</span>');
    const [event] = await t.services.audit.listEvents(owner.id, { action: 'account.renamed' });
    expect(event).toMatchObject({ action: 'account.renamed', details: { from: owner.email, to: 'Acme <Support>' } });

    const tooLong = await client.post('/dashboard/members/team-name', { teamName: 'x'.repeat(101) });
    expect(tooLong.res.status).toBe(400);
    expect(tooLong.html).toContain('id="teamName-error"');

    // An admin sees no control for it, and is refused when posting anyway.
    const admin = await signIn(adminEmail);
    const adminPage = await admin.get('/dashboard/members');
    expect(adminPage.html).not.toContain('/dashboard/members/team-name');
    expect((await admin.post('/dashboard/members/team-name', { teamName: 'Taken over' })).res.status).toBe(403);
    expect((await t.services.accounts.getAccount(owner.id)).teamName).toBe('Acme <Support>');

    // Empty gives the owner's email back.
    await client.get('/dashboard/members');
    await client.post('/dashboard/members/team-name', { teamName: '' });
    expect((await t.services.accounts.getAccount(owner.id)).teamName).toBe(owner.email);
  });
});

describe('invitations name the team and who invites', () => {
  it('the email and the page name both; accepting says so and works in the team joined', async () => {
    const owner = await createAccount(t.services, { email: unique('boss'), password: PASSWORD, displayName: 'Grace Boss' });
    await t.services.accounts.setTeamName(owner.id, 'Harbour Café');
    await createForm(t.services, owner.id, { name: 'Bookings' });
    const guestEmail = unique('guest');
    // The guest has a login (and an account of their own, with no forms).
    await createAccount(t.services, { email: guestEmail, password: PASSWORD, emailConfirmed: true });

    const client = await signIn(owner.email);
    expect((await client.post('/dashboard/members/invitations', { email: guestEmail, role: 'member' })).res.status).toBe(303);
    await waitFor(() => sink.to(guestEmail).length === 1, 15_000, 'the invitation');
    const mail = sink.to(guestEmail)[0]!.parsed;
    expect(mail.subject).toBe('Grace Boss invites you to the team Harbour Café on Formgate');
    expect(mail.text).toContain(`Grace Boss (${owner.email}) invites you to join the team “Harbour Café” on Formgate as member.`);
    const link = /(\/dashboard\/invite\/[A-Za-z0-9_-]+)/.exec(mail.text!)![1]!;

    const guest = await signIn(guestEmail);
    const invitePage = await guest.get(link);
    expect(invitePage.html).toContain(`<strong>Grace Boss</strong> (${owner.email}) invites you to join the team <strong>Harbour Café</strong> as <strong>member</strong>.`);
    const accepted = await guest.post(`${link}/accept`, {});
    expect(accepted.res.status).toBe(303);
    const landing = await guest.get(accepted.res.headers.get('location')!);
    expect(landing.html).toContain('You joined the team Harbour Café: you are working in it now.');
    // The team joined, with its form, not the guest's own empty account.
    expect(landing.html).toContain('Bookings');
    expect(landing.html).toMatch(/<option value="[^"]+" selected>Harbour Café · member<\/option>/);
  });
});
