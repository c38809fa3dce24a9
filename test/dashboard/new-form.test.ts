import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { expectCsrfRefused } from '../helpers/csrf.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let sink: SmtpSink;
let t: AppUnderTest;
const PASSWORD = 'correct horse battery';
const unique = (name: string) => `${name}-${randomBase62(6).toLowerCase()}@example.com`;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, MAIL_FROM: 'formgate@example.com', SUBMIT_RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** Creates a form on the dashboard and returns its ID, from where the page leads. */
async function createFormOnDashboard(client: DashboardClient, name: string): Promise<string> {
  await client.get('/dashboard/forms');
  const { res } = await client.post('/dashboard/forms', { name });
  expect(res.status).toBe(303);
  return /\/dashboard\/forms\/([^/]+)\/settings$/.exec(res.headers.get('location')!)![1]!;
}

async function signIn(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t);
  await client.get('/dashboard/login');
  expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
  return client;
}

describe('a new form tells its creator', () => {
  it('a confirmed address is a verified recipient at once: the first submission reaches it', async () => {
    const email = unique('confirmed');
    await createAccount(t.services, { email, password: PASSWORD, emailConfirmed: true });
    const client = await signIn(email);
    await expectCsrfRefused(client, '/dashboard/forms', { name: 'Never made' });
    const formId = await createFormOnDashboard(client, 'Quotes');
    expect((await t.services.notifications.listRecipients(formId)).map((r) => [r.address, r.state])).toEqual([[email, 'verified']]);
    const settings = await client.get(`/dashboard/forms/${formId}/settings`);
    expect(settings.html).toContain(email);

    await submit(t, formId, { json: { message: 'a quote, please' } }, JSON_ACCEPT);
    await waitFor(() => sink.to(email).length === 1, 15_000, 'the notification');
    expect(sink.to(email)[0]!.parsed.text).toContain('a quote, please');
  });

  it('an address never confirmed gets the confirmation link first, as any new recipient', async () => {
    const email = unique('signed-up');
    const client = new DashboardClient(t);
    await client.signUp(email);
    const formId = await createFormOnDashboard(client, 'Contact');
    expect((await t.services.notifications.listRecipients(formId)).map((r) => [r.address, r.state])).toEqual([[email, 'pending']]);
    await waitFor(() => sink.to(email).length === 1, 15_000, 'the confirmation link');
    expect(sink.to(email)[0]!.parsed.text).toMatch(/\/dashboard\/verify-email\//);
    // The audit log says a recipient was added, by name.
    const account = await t.services.accounts.getAccountByIdOrEmail(email);
    const events = await t.services.audit.listEvents(account.id, { limit: 10 });
    expect(events.map((e) => e.action)).toContain('notification.recipient_added');
  });
});

describe('file sizes on the settings page', () => {
  it('shown in KiB/MiB, typed in units or bytes; a size that is none is named', async () => {
    const email = unique('sizes');
    const client = new DashboardClient(t);
    await client.signUp(email);
    const formId = await createFormOnDashboard(client, 'Uploads');
    const page = await client.get(`/dashboard/forms/${formId}/settings`);
    expect(page.html).toContain('name="maxFileBytes" value="10 MiB"');
    expect(page.html).toContain('name="maxTotalBytes" value="25 MiB"');
    expect(page.html).toContain('<a href="#files">File uploads</a>');

    const save = (maxFileBytes: string, maxTotalBytes: string) =>
      client.postPairs(`/dashboard/forms/${formId}/settings`, [['name', 'Uploads'], ['isActive', '1'], ['files', 'store'], ['maxFileBytes', maxFileBytes], ['maxTotalBytes', maxTotalBytes]]);
    const saved = await save('1.5 MiB', '20MB');
    expect(saved.res.status).toBe(200);
    expect(await t.services.forms.getForm(formId)).toMatchObject({ maxFileBytes: 1.5 * 1024 * 1024, maxTotalBytes: 20 * 1024 * 1024 });
    expect(saved.html).toContain('name="maxFileBytes" value="1.5 MiB"');
    expect(saved.html).toContain('name="maxTotalBytes" value="20 MiB"');

    // A size no unit says exactly stays in bytes, so saving the page again changes nothing.
    expect((await save('1000001', '20 MiB')).html).toContain('name="maxFileBytes" value="1000001"');
    expect((await t.services.forms.getForm(formId)).maxFileBytes).toBe(1000001);

    const refused = await save('ten megs', '20 MiB');
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('id="maxFileBytes-error"');
    expect(refused.html).toContain('name="maxFileBytes" value="ten megs"');
    expect((await t.services.forms.getForm(formId)).maxFileBytes).toBe(1000001);
  });
});
