import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

async function ownerWithForm(email: string): Promise<{ client: DashboardClient; formId: string }> {
  const client = new DashboardClient(t);
  await client.signUp(email);
  await client.get('/dashboard/forms');
  const created = await client.post('/dashboard/forms', { name: 'Contact' });
  return { client, formId: /\/dashboard\/forms\/([^/]+)\/settings/.exec(created.res.headers.get('location')!)![1]! };
}

/** The add form of one kind, from its `<details>` to the next. */
const addForm = (html: string, kind: string) => html.split('<details').find((d) => d.includes(`data-kind="${kind}"`))!;
/** The inputs the owner fills in (the hidden ones are written `type="hidden" name=…`). */
const inputNames = (fragment: string) => [...fragment.matchAll(/<(?:input|textarea) name="([^"]+)"/g)].map((m) => m[1]);

describe(`adding a Sheets, Airtable, Notion, Mailchimp or listmonk integration on the dashboard on ${testDialect}`, () => {
  it('each kind’s form asks only for its own settings; ?kind= opens that one', async () => {
    const { client, formId } = await ownerWithForm('services-fields@example.com');
    const page = await client.get(`/dashboard/forms/${formId}/integrations?kind=airtable`);
    expect(page.res.status).toBe(200);
    expect(inputNames(addForm(page.html, 'sheets'))).toEqual(['name', 'key', 'spreadsheet', 'sheet']);
    expect(inputNames(addForm(page.html, 'airtable'))).toEqual(['name', 'token', 'base', 'table', 'map']);
    expect(inputNames(addForm(page.html, 'notion'))).toEqual(['name', 'token', 'database']);
    expect(inputNames(addForm(page.html, 'mailchimp'))).toEqual(['name', 'apiKey', 'audience', 'consentField']);
    expect(inputNames(addForm(page.html, 'listmonk'))).toEqual(['name', 'url', 'username', 'token', 'lists', 'consentField']);
    expect(addForm(page.html, 'airtable')).toMatch(/^ class="add-integration" data-kind="airtable" open>/);
    expect(addForm(page.html, 'sheets')).not.toMatch(/ open>/);
  });

  it('the token is shown once, then only as set; the settings stay visible', async () => {
    const { client, formId } = await ownerWithForm('services-secret@example.com');
    await client.get(`/dashboard/forms/${formId}/integrations`);
    const token = 'patDashboard0001.0123456789abcdef';
    const added = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'airtable', token, base: 'appDASH0000000001', table: 'Leads', map: 'email=Email\r\nmessage = Notes\r\n' });
    expect(added.res.status).toBe(303);
    const once = await client.get(added.res.headers.get('location')!);
    expect(once.html).toContain(`<pre id="new-secret">${token}</pre>`);
    expect(once.html).toContain('Airtable integration added.');
    const again = await client.get(`/dashboard/forms/${formId}/integrations`);
    expect(again.html).not.toContain(token);
    expect(again.html).toContain('Personal access token: <code>set</code> · Base ID: <code>appDASH0000000001</code> · Table (name or ID): <code>Leads</code>');
    expect(again.html).toContain('email → Email, message → Notes');
  });

  it('a service-account key is stored, never shown; a refused add keeps what was typed, with the message', async () => {
    const { client, formId } = await ownerWithForm('services-key@example.com');
    await client.get(`/dashboard/forms/${formId}/integrations`);
    const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const key = JSON.stringify({ type: 'service_account', client_email: 'fg@p.iam.gserviceaccount.com', private_key: privateKey, token_uri: t.config.googleTokenUrl });
    const refused = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'sheets', key, spreadsheet: 'short', sheet: 'Leads' });
    expect(refused.res.status).toBe(400);
    const form = addForm(refused.html, 'sheets');
    expect(form).toContain('value="short"');
    expect(form).toContain('<p class="field-error">must be a spreadsheet ID (the part of its URL after /d/)</p>');

    const added = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'sheets', key, spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms', sheet: 'Leads' });
    expect(added.res.status).toBe(303);
    const page = await client.get(added.res.headers.get('location')!);
    expect(page.html).not.toContain('PRIVATE KEY');
    expect(page.html).toContain('Service account key (JSON): <code>set</code> · Spreadsheet ID: <code>1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms</code> · Sheet name: <code>Leads</code>');
  });

  it('a mailing list: the key or token shown once; the audience, lists and consent field stay visible', async () => {
    const { client, formId } = await ownerWithForm('services-lists@example.com');
    await client.get(`/dashboard/forms/${formId}/integrations?kind=mailchimp`);
    const apiKey = '0123456789abcdef0123456789abcdef-us21';
    const mailchimp = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'mailchimp', apiKey, audience: 'a1b2c3d4e5', consentField: '' });
    expect(mailchimp.res.status).toBe(303);
    const once = await client.get(mailchimp.res.headers.get('location')!);
    expect(once.html).toContain(`<pre id="new-secret">${apiKey}</pre>`);
    expect(once.html).toContain('Mailchimp integration added.');

    const refused = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'listmonk', url: 'http://lists.example.com', username: 'formgate', token: 'tok3n', lists: '3\r\nfour' });
    expect(refused.res.status).toBe(400);
    expect(addForm(refused.html, 'listmonk')).toContain('<p class="field-error">must be an https: URL</p>');
    expect(addForm(refused.html, 'listmonk')).toContain('<p class="field-error">must be list IDs: whole numbers, as listmonk shows them</p>');
    const listmonk = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'listmonk', url: 'https://lists.example.com/admin/', username: 'formgate', token: 'tok3n', lists: '3\r\n4\r\n', consentField: 'newsletter' });
    expect(listmonk.res.status).toBe(303);
    await client.get(listmonk.res.headers.get('location')!);

    const page = await client.get(`/dashboard/forms/${formId}/integrations`);
    expect(page.html).not.toContain(apiKey);
    expect(page.html).not.toContain('tok3n');
    expect(page.html).toContain('API key: <code>set</code> · Audience ID: <code>a1b2c3d4e5</code> · Consent field: <code>subscribe</code>');
    expect(page.html).toContain(
      'listmonk address: <code>https://lists.example.com</code> · API user: <code>formgate</code> · API token: <code>set</code> · List IDs, one a line: <code>3, 4</code> · Consent field: <code>newsletter</code>',
    );
  });

  it('logs a sign-up without consent as skipped (no consent)', async () => {
    const { client, formId } = await ownerWithForm('services-consent@example.com');
    await t.services.integrations.addIntegration(formId, { kind: 'mailchimp', apiKey: '0123456789abcdef0123456789abcdef-us21', audience: 'a1b2c3d4e5' });
    const res = await submit(t, formId, { json: { email: 'quiet@example.com', message: 'no newsletter, thanks' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 15_000, 'the message skipped');
    const page = await client.get(`/dashboard/forms/${formId}/integrations`);
    expect(page.html).toMatch(/<td data-label="Result">skipped \(no consent\)<\/td><td data-label="Status">—<\/td><td data-label="Error"><\/td>/);
  });

  it('says why an integration was turned off', async () => {
    const { client, formId } = await ownerWithForm('services-off@example.com');
    const notion = await t.services.integrations.addIntegration(formId, { kind: 'notion', token: 'ntn_x', database: '0123456789abcdef0123456789abcdef' });
    await t.handle.db.updateTable('integrations').set({ enabled: 0, disabled_reason: 'Notion answered HTTP 404: Could not find database' }).where('id', '=', notion.id).execute();
    const page = await client.get(`/dashboard/forms/${formId}/integrations`);
    expect(page.html).toContain('Disabled: Notion answered HTTP 404: Could not find database');
  });
});
