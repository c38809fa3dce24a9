import { readFileSync } from 'node:fs';
import { Encrypter, armor, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Form } from '../../src/features/forms/form.types.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';

// The dashboard's pages for sealed forms carry the ciphertext and the in-browser tools; the
// browser tests (e2e/browser/sealed.test.ts) open them.
let t: AppUnderTest;
let client: DashboardClient;
let sealedForm: Form;
let plainForm: Form;
let recipient: string;

async function sealed(text: string): Promise<string> {
  const encrypter = new Encrypter();
  encrypter.addRecipient(recipient);
  return armor.encode(await encrypter.encrypt(JSON.stringify({ message: text })));
}

/** The HTML escaping of an attribute value, as the templates write it. */
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

beforeAll(async () => {
  t = await buildTestApp();
  client = new DashboardClient(t);
  await client.signUp('sealed-pages@example.com');
  const account = await t.services.accounts.getAccountByIdOrEmail('sealed-pages@example.com');
  recipient = await identityToRecipient(await generateX25519Identity());
  sealedForm = await t.services.forms.createForm(account.id, { name: 'Sealed', sealed: { recipients: [{ recipient, label: null }] } });
  plainForm = await t.services.forms.createForm(account.id, { name: 'Plain' });
});
afterAll(async () => {
  await t?.close();
});

describe('dashboard pages of sealed forms', () => {
  it('serves the in-browser tools as a script from the dashboard itself (its CSP allows only that)', async () => {
    const res = await t.fetch('/dashboard/assets/sealed.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const built = readFileSync(new URL('../../client/dist/dashboard-sealed.min.js', import.meta.url));
    expect(Buffer.from(await res.arrayBuffer()).equals(built)).toBe(true);
  });

  it('the list carries each sealed submission whole for the browser to open, and the opener', async () => {
    const armored = await sealed('only the key holder reads this');
    const res = await submit(t, sealedForm.id, { json: { sealed: armored, _honey: '' } }, JSON_ACCEPT);
    expect(res.status).toBe(200);
    const page = await client.get(`/dashboard/forms/${sealedForm.id}/submissions`);
    expect(page.html).toContain('id="seal-opener"');
    expect(page.html).toContain('<script src="/dashboard/assets/sealed.js" defer></script>');
    expect(page.html).toContain(`data-sealed="${attribute(armored)}"`);
    expect(page.html).toContain('Sealed: open it with your key above.');
    // The preview would show a cut ciphertext: the cell says what to do instead.
    expect(page.html).not.toContain('sealed: -----BEGIN');

    const { submissions } = await t.services.submissionQueries.listSubmissions(sealedForm.accountId, sealedForm.id);
    const one = await client.get(`/dashboard/submissions/${submissions[0]!.id}`);
    expect(one.html).toMatch(new RegExp(`<table class="fields" id="sealed-fields" data-sealed="${attribute(armored).replace(/[+/]/g, '\\$&')}" data-id="${submissions[0]!.id}"`));
    expect(one.html).toContain('id="seal-key-file"');
  });

  it('the settings page offers to make a key, filling in the recipient to add', async () => {
    const page = await client.get(`/dashboard/forms/${sealedForm.id}/settings`);
    expect(page.html).toContain('<div id="seal-keymaker" data-fill="sealed-recipient">');
    expect(page.html).toMatch(/<input name="recipient" id="sealed-recipient"/);
    expect(page.html).toContain('<script src="/dashboard/assets/sealed.js" defer></script>');
  });

  it('a form never sealed, with nothing sealed, loads none of it', async () => {
    await submit(t, plainForm.id, { json: { message: 'in clear' } }, JSON_ACCEPT);
    const page = await client.get(`/dashboard/forms/${plainForm.id}/submissions`);
    expect(page.html).toContain('message: in clear');
    expect(page.html).not.toContain('seal-opener');
    expect(page.html).not.toContain('/dashboard/assets/sealed.js');
  });
});
