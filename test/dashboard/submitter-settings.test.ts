import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { expectCsrfRefused } from '../helpers/csrf.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let t: AppUnderTest;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, BASE_URL: 'https://forms.example.com' } });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

describe('dashboard: the submitter side of a form', () => {
  it('saves the confirmation settings, previews them from a sample submission, refuses bad templates by field, and logs skips', async () => {
    const client = new DashboardClient(t);
    await client.signUp('submitter-owner@example.com');
    const account = await t.services.accounts.getAccountByIdOrEmail('submitter-owner@example.com');
    const form = await t.services.forms.createForm(account.id, { name: 'Café <Form>' });
    const page = await client.get(`/dashboard/forms/${form.id}/settings`);
    expect(page.html).toContain('Confirmation email, thank-you page and language');
    expect(page.html).toContain('address(es) have unsubscribed on this server');
    await expectCsrfRefused(client, `/dashboard/forms/${form.id}/submitter`, { autoReplyEnabled: '1' });

    const saved = await client.postPairs(`/dashboard/forms/${form.id}/submitter`, [
      ['autoReplyEnabled', '1'], ['autoReplyField', 'email'], ['autoReplySubject', 'Thanks {{name}}'],
      ['autoReplyBody', 'Dear {{name}},\r\nyou wrote: {{message}}'], ['notifySubject', ''], ['thanksTitle', 'Danke'],
      ['thanksMessage', ''], ['language', 'de'],
    ]);
    expect(saved.res.status).toBe(200);
    expect(saved.html).toContain('Settings saved.');
    const stored = await t.services.forms.getForm(form.id);
    expect(stored).toMatchObject({
      autoReply: { enabled: true, field: 'email', subject: 'Thanks {{name}}', body: 'Dear {{name}},\nyou wrote: {{message}}' },
      notifySubject: 'New submission: {{form.name}}',
      thanksTitle: 'Danke',
      thanksMessage: null,
      language: 'de',
    });
    // The preview is the real composition, shown escaped: the sample's HTML stays text.
    expect(/<span id="preview-subject">([^<]*)<\/span>/.exec(saved.html)![1]).toBe('Thanks Ada Lovelace');
    const previewText = unescape(/<pre id="preview-text">([\s\S]*?)<\/pre>/.exec(saved.html)![1]!);
    expect(previewText).toContain('Dear Ada Lovelace,\nyou wrote: Hello! <b>Is this escaped?</b>');
    expect(previewText).toContain('im Formular „Café <Form>“ auf forms.example.com');
    expect(saved.html).not.toContain('<b>Is this escaped?</b>');

    const refused = await client.postPairs(`/dashboard/forms/${form.id}/submitter`, [['autoReplyEnabled', '1'], ['autoReplySubject', '{{#list}}x{{/list}}'], ['language', 'de']]);
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('id="autoReply.subject-error"');
    expect(refused.html).toContain('value="{{#list}}x{{/list}}"');
    expect((await t.services.forms.getForm(form.id)).autoReply.subject).toBe('Thanks {{name}}');

    // Two submissions from one address: one confirmation, one skip on the email log page.
    for (let i = 0; i < 2; i++) expect((await submit(t, form.id, { json: { email: 'visitor@example.org', name: 'V' } }, JSON_ACCEPT)).status).toBe(200);
    await waitFor(() => sink.to('visitor@example.org').length === 1, 15_000, 'the confirmation');
    await waitFor(async () => (await t.services.notifications.emailLog(account.id, form.id)).some((e) => e.skipReason === 'rate_limited'), 15_000, 'the skip');
    const log = await client.get(`/dashboard/forms/${form.id}/email-log`);
    expect(log.html).toContain('confirmation');
    expect(log.html).toContain('one confirmation per address an hour');
    expect(log.html).not.toContain('(rate_limited)');
  });
});
