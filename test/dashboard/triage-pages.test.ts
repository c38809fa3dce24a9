import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/platform/lib/time.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { insertSubmissions } from '../helpers/factories.js';
import { storedSubmission } from '../helpers/submit.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

async function ownerWithForm(email: string) {
  const client = new DashboardClient(t);
  await client.signUp(email);
  await client.get('/dashboard/forms');
  const created = await client.post('/dashboard/forms', { name: 'Pages' });
  const formId = created.res.headers.get('location')!.split('/')[3]!;
  return { client, formId };
}

describe('triage and lifecycle pages', () => {
  it('the bulk action needs the CSRF token, and marks only the owner\'s submissions', async () => {
    const { client, formId } = await ownerWithForm('bulk@example.com');
    const other = await ownerWithForm('bulk-other@example.com');
    const [mine] = await insertSubmissions(t.services, formId, [{ createdAt: nowIso() }]);
    const [theirs] = await insertSubmissions(t.services, other.formId, [{ createdAt: nowIso() }]);
    await client.get(`/dashboard/forms/${formId}/submissions`);
    const body = new URLSearchParams([['ids', mine!], ['ids', theirs!], ['action', 'spam'], ['_csrf', 'forged']]);
    const forged = await t.fetch(`/dashboard/forms/${formId}/submissions/bulk`, {
      method: 'POST',
      headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect((await storedSubmission(t, mine!))!.is_spam).toBe(0);

    await client.get(`/dashboard/forms/${formId}/submissions`);
    body.set('_csrf', client.csrf);
    const res = await t.fetch(`/dashboard/forms/${formId}/submissions/bulk`, {
      method: 'POST',
      headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect((await storedSubmission(t, mine!))!).toMatchObject({ is_spam: 1, spam_reason: 'marked' });
    expect((await storedSubmission(t, theirs!))!).toMatchObject({ is_spam: 0, spam_reason: null });

    await client.get(`/dashboard/submissions/${mine}`);
    expect((await client.post(`/dashboard/submissions/${mine}/mark`, { spam: 'maybe' })).res.status).toBe(400);
    await client.get(`/dashboard/submissions/${mine}`);
    expect((await client.post(`/dashboard/submissions/${theirs}/mark`, { spam: '1' })).res.status).toBe(404);
  });

  it('erasure refuses a non-address, and form deletion another owner\'s form', async () => {
    const { client, formId } = await ownerWithForm('erase-page@example.com');
    const other = await ownerWithForm('erase-other@example.com');
    await client.get('/dashboard/account');
    const bad = await client.post('/dashboard/account/erase', { email: 'nobody' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('id="email-error">Enter an email address like name@example.com.');
    await client.get(`/dashboard/forms/${formId}/delete`);
    expect((await client.post(`/dashboard/forms/${other.formId}/delete`, { confirmName: 'Pages' })).res.status).toBe(404);
    expect(await t.services.forms.findForm(other.formId)).toBeDefined();
  });
});

describe('settings page: spam and privacy fields', () => {
  it('saves them, and answers a repeated or bad field with a field error, never a 500', async () => {
    const { client, formId } = await ownerWithForm('settings-fields@example.com');
    await client.get(`/dashboard/forms/${formId}/settings`);
    const base = { name: 'Pages', isActive: '1', storeIp: 'full' };
    const saved = await client.post(`/dashboard/forms/${formId}/settings`, { ...base, blockedTerms: 'Casino\r\n\r\nloans', blockedEmails: '@spam.example, x@y.example', allowedOrigins: 'https://www.example.com/contact, example.com', maxLinks: '0', retentionDays: '365', turnstileSiteKey: '0x4AAA' });
    expect(saved.res.status).toBe(200);
    expect(await t.services.forms.getForm(formId)).toMatchObject({
      blockedTerms: ['casino', 'loans'],
      blockedEmails: ['@spam.example', 'x@y.example'],
      allowedOrigins: ['www.example.com', 'example.com'],
      maxLinks: 0,
      retentionDays: 365,
      turnstileSiteKey: '0x4AAA',
    });
    expect(saved.html).toContain('name="turnstileSiteKey" maxlength="256" placeholder="0x4AAAAAAA…" value="0x4AAA"');

    const repeated = new URLSearchParams([...Object.entries(base), ['maxLinks', '1'], ['maxLinks', '2'], ['_csrf', client.csrf]]);
    const res = await t.fetch(`/dashboard/forms/${formId}/settings`, {
      method: 'POST',
      headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: repeated,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/id="maxLinks-error">Enter one value only/);

    await client.get(`/dashboard/forms/${formId}/settings`);
    for (const [field, value] of [['maxLinks', '-1'], ['retentionDays', 'forever'], ['storeIp', 'some'], ['blockedEmails', 'nope'], ['allowedOrigins', 'bad host!']] as const) {
      const bad = await client.post(`/dashboard/forms/${formId}/settings`, { ...base, [field]: value });
      expect(bad.res.status).toBe(400);
      expect(bad.html).toContain(`id="${field}-error"`);
    }
    expect((await t.services.forms.getForm(formId)).maxLinks).toBe(0);
  });
});
