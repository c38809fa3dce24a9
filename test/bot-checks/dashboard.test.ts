import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/platform/lib/time.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { insertSubmissions } from '../helpers/factories.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp({ env: { RECAPTCHA_SECRET_KEY: 'r-global' } });
});
afterAll(async () => t?.close());

async function ownerWithForm(email: string) {
  const client = new DashboardClient(t);
  await client.signUp(email);
  await client.get('/dashboard/forms');
  const created = await client.post('/dashboard/forms', { name: 'Checked' });
  const formId = created.res.headers.get('location')!.split('/')[3]!;
  return { client, formId };
}

const base = { name: 'Checked', isActive: '1', storeIp: 'full' };
const decode = (html: string) => html.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');

describe('settings page: bot check and learning filter', () => {
  it('chooses the vendor with its fields; the snippet carries that vendor\'s widget (ALTCHA from Formgate itself)', async () => {
    const { client, formId } = await ownerWithForm('vendors@example.com');
    await client.get(`/dashboard/forms/${formId}/settings`);
    const altcha = await client.post(`/dashboard/forms/${formId}/settings`, { ...base, botCheck: 'altcha', altchaComplexity: 'high', minFillSeconds: '4', spamFilter: 'learn' });
    expect(altcha.res.status).toBe(200);
    expect(await t.services.forms.getForm(formId)).toMatchObject({ botCheck: 'altcha', altchaComplexity: 'high', minFillSeconds: 4, spamFilter: 'learn' });
    const snippet = decode(/<pre id="snippet">([\s\S]*?)<\/pre>/.exec(altcha.html)![1]!);
    expect(snippet).toContain(`<altcha-widget challengeurl="${t.config.baseUrl}/v1/challenge/${formId}" auto="onload" hidelogo></altcha-widget>`);
    expect(snippet).toMatch(new RegExp(`<script type="module" src="${t.config.baseUrl}/v1/assets/altcha\\.js\\?v=\\d+\\.\\d+\\.\\d+" async defer></script>`));
    expect(snippet).not.toContain('cloudflare');
    expect(altcha.html).toContain('<option value="altcha" selected>');
    expect(altcha.html).toContain('<option value="learn" selected>');

    // reCAPTCHA with RECAPTCHA_SECRET_KEY on the server: no secret of its own needed; the site key goes into the snippet.
    await client.get(`/dashboard/forms/${formId}/settings`);
    const recaptcha = await client.post(`/dashboard/forms/${formId}/settings`, { ...base, botCheck: 'recaptcha', recaptchaSiteKey: '6LcSiteKey', recaptchaMinScore: '0.7' });
    expect(recaptcha.res.status).toBe(200);
    expect(await t.services.forms.getForm(formId)).toMatchObject({ botCheck: 'recaptcha', recaptchaMinScore: 0.7, recaptchaSecret: null });
    expect(decode(recaptcha.html)).toContain('<div class="g-recaptcha" data-sitekey="6LcSiteKey"></div>');
    expect(recaptcha.html).toContain('placeholder="default: RECAPTCHA_SECRET_KEY"');

    // hCaptcha with no secret anywhere: refused, the field named, nothing saved.
    await client.get(`/dashboard/forms/${formId}/settings`);
    const refused = await client.post(`/dashboard/forms/${formId}/settings`, { ...base, botCheck: 'hcaptcha' });
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('id="hcaptchaSecret-error"');
    expect(refused.html).toContain('HCAPTCHA_SECRET_KEY');
    expect((await t.services.forms.getForm(formId)).botCheck).toBe('recaptcha');

    await client.get(`/dashboard/forms/${formId}/settings`);
    const badScore = await client.post(`/dashboard/forms/${formId}/settings`, { ...base, botCheck: 'recaptcha', recaptchaMinScore: 'lots' });
    expect(badScore.res.status).toBe(400);
    expect(badScore.html).toContain('id="recaptchaMinScore-error"');
  });

  it('says what the filter learned and still needs; the spam tab shows the reason in words and the classifier\'s score', async () => {
    const { client, formId } = await ownerWithForm('learned@example.com');
    const ids = await insertSubmissions(t.services, formId, [{ createdAt: nowIso(), payload: { m: 'buy pills' } }, { createdAt: nowIso(), payload: { m: 'hello' } }]);
    await t.services.triage.markSubmissions([ids[0]!], true);
    await t.services.triage.markSubmissions([ids[1]!], false);
    const settings = await client.get(`/dashboard/forms/${formId}/settings`);
    expect(settings.html).toContain('id="spam-filter-examples">Not filing anything yet: it needs 10 of each: 1 spam, 1 not spam so far.');

    // A submission the filter filed, as the submit path stores it.
    await t.handle.db.updateTable('submissions').set({ is_spam: 1, spam_reason: 'classifier', spam_score: 0.99995 }).where('id', '=', ids[1]!).execute();
    const spamTab = await client.get(`/dashboard/forms/${formId}/submissions?spam=1`);
    expect(spamTab.html).toContain('<td data-label="Reason" class="reason">the learning filter is sure it is spam (score 0.9999)</td>');
    expect(spamTab.html).toMatch(/<td data-label="Reason" class="reason">marked spam by hand<\/td>/);
    const detail = await client.get(`/dashboard/submissions/${ids[1]}`);
    expect(detail.html).toContain('Spam: the learning filter is sure it is spam (score 0.9999)');
  });
});
