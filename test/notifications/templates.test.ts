import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/platform/errors.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let sink: SmtpSink;
let t: AppUnderTest;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, BASE_URL: 'https://forms.example.com' } });
});

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const address = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;

async function submitJson(formId: string, fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

async function settingsError(formId: string, settings: Record<string, unknown>): Promise<AppError> {
  try {
    await t.services.forms.updateForm(formId, settings);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('the settings were accepted');
}

/** The raw header block of a received message, unfolded, one header a line. */
const headerLines = (raw: string) => raw.split(/\r\n\r\n/)[0]!.replace(/\r\n[ \t]+/g, ' ').split('\r\n');

describe(`notification subject templates on ${testDialect}`, () => {
  it('renders the form notifySubject from the submission; no field name or value adds a header or runs a template', async () => {
    const to = address('owner');
    const owner = await createOwner(t.services, { form: { name: 'Shop' } });
    await t.services.notifications.setRecipients(owner.form.id, [to], { verified: true });
    await t.services.forms.updateForm(owner.form.id, { notifySubject: '[{{form.name}}]{{ghost}} {{topic}} from {{name}} ({{submission.id}})' });

    const attacks: Array<Record<string, unknown>> = [
      { topic: 'Order\r\nBcc: victim@evil.example', name: 'Ada' },
      { topic: '{{form.name}} {{{x}}} {{#a}}b{{/a}} }}', name: '{{submission.id}}', x: 'SECRET' },
      { topic: ['a', 'b'], name: 'x'.repeat(300) },
      { 'topic\r\nX-Injected: 1': 'v', '{{name}}': 'w', name: 'Bob\nContent-Type: text/html' },
    ];
    const ids: string[] = [];
    for (const fields of attacks) ids.push(await submitJson(owner.form.id, fields));
    await waitFor(() => sink.to(to).length === attacks.length, 15_000, 'every notification');

    const subjectOf = (id: string) => sink.to(to).find((m) => m.parsed.headers.get('x-formgate-submission-id') === id)!;
    expect(subjectOf(ids[0]!).parsed.subject).toBe(`[Shop] Order Bcc: victim@evil.example from Ada (${ids[0]})`);
    expect(subjectOf(ids[1]!).parsed.subject).toBe(`[Shop] {{form.name}} {{{x}}} {{#a}}b{{/a}} }} from {{submission.id}} (${ids[1]})`);
    expect(subjectOf(ids[2]!).parsed.subject).toBe(`[Shop] a, b from ${'x'.repeat(100)} (${ids[2]})`);
    expect(subjectOf(ids[3]!).parsed.subject).toBe(`[Shop]  from Bob Content-Type: text/html (${ids[3]})`);
    for (const mail of sink.to(to)) {
      const names = headerLines(mail.raw).map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
      expect(names.filter((n) => n === 'subject')).toHaveLength(1);
      expect(names).not.toContain('bcc');
      expect(names).not.toContain('x-injected');
      expect(names.filter((n) => n === 'content-type')).toHaveLength(1);
    }
    expect(sink.rcptAttempts.filter((x) => x.includes('evil.example'))).toEqual([]);
  });

  it('keeps the default subject "New submission: {{form.name}}" and restores it when the template is cleared', async () => {
    const to = address('default');
    const owner = await createOwner(t.services, { form: { name: 'Hello {{name}}' } });
    await t.services.notifications.setRecipients(owner.form.id, [to], { verified: true });
    expect(owner.form.notifySubject).toBe('New submission: {{form.name}}');
    await t.services.forms.updateForm(owner.form.id, { notifySubject: 'Custom' });
    await t.services.forms.updateForm(owner.form.id, { notifySubject: null });
    await submitJson(owner.form.id, { name: 'Ada' });
    await waitFor(() => sink.to(to).length === 1, 15_000, 'the notification');
    // A form name is a value too: its braces are not a template.
    expect(sink.to(to)[0]!.parsed.subject).toBe('New submission: Hello {{name}}');
  });

  it('refuses a template that does not parse or uses more than plain variables, naming the setting', async () => {
    const owner = await createOwner(t.services);
    for (const bad of ['{{#items}}x{{/items}}', '{{{raw}}}', '{{> partial}}', '{{unclosed', '{{&name}}']) {
      const error = await settingsError(owner.form.id, { notifySubject: bad });
      expect(error.code).toBe('validation_failed');
      expect(Object.keys(error.fieldErrors ?? {})).toEqual(['notifySubject']);
    }
    const error = await settingsError(owner.form.id, { autoReply: { subject: '{{#a}}', body: 'ok {{name}}' } });
    expect(error.fieldErrors).toEqual({ 'autoReply.subject': expect.stringMatching(/template/) });
    expect((await settingsError(owner.form.id, { autoReply: { body: 'x'.repeat(5001) } })).fieldErrors).toHaveProperty(['autoReply.body']);
    expect((await settingsError(owner.form.id, { notifySubject: 'x'.repeat(201) })).fieldErrors).toHaveProperty('notifySubject');
    expect((await t.services.forms.getForm(owner.form.id)).notifySubject).toBe('New submission: {{form.name}}');
  });
});
