import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogues } from '../../src/platform/i18n/i18n.js';
import { HOSTED_PAGE_CSP } from '../../src/features/submit/views/hosted-pages.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, submit } from '../helpers/submit.js';

let t: AppUnderTest;
let accountId: string;

beforeAll(async () => {
  t = await buildTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: '0' } });
  accountId = (await createOwner(t.services)).account.id;
});
afterAll(async () => {
  await t?.close();
});

interface ErrorBody {
  error: string;
  message: string;
  fieldErrors?: Record<string, string>;
}

describe('one language per submission: JSON errors', () => {
  it("a form set to German answers German messages and field errors, whatever the browser asks", async () => {
    const form = await createForm(t.services, accountId, { language: 'de', requiredFields: ['name', 'email'] });
    const res = await submit(t, form.id, { json: { message: 'Hallo' } }, { ...JSON_ACCEPT, 'accept-language': 'en-US' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-language')).toBe('de');
    expect((await res.json()) as ErrorBody).toEqual({
      error: 'validation_failed',
      message: catalogues.de['submit.required_missing'],
      fieldErrors: { name: 'Dieses Feld ist erforderlich.', email: 'Dieses Feld ist erforderlich.' },
    });
    const empty = (await (await submit(t, form.id, { json: { message: ' ' } }, JSON_ACCEPT)).json()) as ErrorBody;
    expect(empty.message).toBe(catalogues.de['submit.empty']);
    // A field error without a text of its own still speaks German, and still names its field.
    const bad = (await (await submit(t, form.id, { json: { name: { nested: true } } }, JSON_ACCEPT)).json()) as ErrorBody;
    expect(bad).toEqual({ error: 'validation_failed', message: catalogues.de['submit.invalid'], fieldErrors: { name: catalogues.de['field.invalid'] } });
    const inactive = await createForm(t.services, accountId, { language: 'de' });
    await t.services.forms.updateForm(inactive.id, { isActive: false });
    expect(((await (await submit(t, inactive.id, { json: { m: 'x' } }, JSON_ACCEPT)).json()) as ErrorBody).message).toBe(catalogues.de['error.form_inactive']);
  });

  it('auto follows Accept-Language; English keeps its messages as written', async () => {
    const form = await createForm(t.services, accountId, { requiredFields: ['name'] });
    const fr = await submit(t, form.id, { json: { message: 'Salut' } }, { ...JSON_ACCEPT, 'accept-language': 'fr-CA,fr;q=0.9' });
    expect(fr.headers.get('content-language')).toBe('fr');
    expect(((await fr.json()) as ErrorBody).fieldErrors).toEqual({ name: 'Ce champ est obligatoire.' });
    const en = (await (await submit(t, form.id, { json: { message: 'Hi' } }, { ...JSON_ACCEPT, 'accept-language': 'ja' })).json()) as ErrorBody;
    expect(en).toEqual({ error: 'validation_failed', message: 'Some required fields are missing.', fieldErrors: { name: 'This field is required.' } });
  });
});

describe('the hosted error page names each refused field', () => {
  it('each field by name with why, escaped, in the form\'s language, with a back link that returns through history', async () => {
    const form = await createForm(t.services, accountId, { language: 'es', requiredFields: ['name', '<b>phone</b>'] });
    const res = await submit(t, form.id, { form: { message: 'Hola' } }, { ...BROWSER_ACCEPT, referer: 'https://shop.example/contacto' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(`<p>${catalogues.es['error.fields']}</p>`);
    expect(html).toContain('<li><strong>name</strong>: Este campo es obligatorio.</li>');
    expect(html).toContain('<li><strong>&lt;b&gt;phone&lt;/b&gt;</strong>: Este campo es obligatorio.</li>');
    expect(html).toContain('<a href="https://shop.example/contacto" rel="noopener" data-back>');
    // The back script runs by its hash only; nothing else may.
    expect(res.headers.get('content-security-policy')).toBe(HOSTED_PAGE_CSP);
    expect(HOSTED_PAGE_CSP).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});

describe('the thank-you page fills in the submission', () => {
  it("{{name}} in the title and message is the visitor's value, escaped; never shown as written", async () => {
    const form = await createForm(t.services, accountId, { thanksTitle: 'Thanks, {{name}}!', thanksMessage: 'We will write to {{email}} about {{form.name}}.' });
    const res = await submit(t, form.id, { form: { name: 'Ada <b>', email: 'ada@example.org' } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    const submissionId = new URL(location).searchParams.get('submission');
    expect(submissionId).toMatch(/^sub_/);
    const html = await (await t.fetch(`${new URL(location).pathname}${new URL(location).search}`)).text();
    expect(html).toContain('<h1>Thanks, Ada &lt;b&gt;!</h1>');
    expect(html).toContain('We will write to ada@example.org about Contact.');
    // Another form's submission, or none: the variables are empty, not "{{name}}".
    const other = await createForm(t.services, accountId, { thanksTitle: 'Hi {{name}}' });
    const foreign = await (await t.fetch(`/thanks?form=${other.id}&submission=${submissionId}`)).text();
    expect(foreign).toContain('<h1>Hi </h1>');
    expect(await (await t.fetch(`/thanks?form=${other.id}`)).text()).not.toContain('{{');
    // Without variables the URL stays the plain per-form one.
    const plain = await createForm(t.services, accountId, { thanksTitle: 'Merci' });
    expect((await submit(t, plain.id, { form: { name: 'x' } }, BROWSER_ACCEPT)).headers.get('location')).toBe(`${t.config.baseUrl}/thanks?form=${plain.id}`);
  });
});
