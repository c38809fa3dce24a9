import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner, insertSubmissions } from '../helpers/factories.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let sink: SmtpSink;
let t: AppUnderTest;
const RETRY_BASE_MS = 150;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, MAIL_RETRY_BASE_MS: String(RETRY_BASE_MS), BASE_URL: 'https://forms.example.com' } });
});

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const address = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;

/** An owner whose form emails these addresses, set as the CLI sets them (verified). */
async function ownerNotifying(addresses: string[], formName = 'Contact') {
  const owner = await createOwner(t.services, { form: { name: formName } });
  await t.services.notifications.setRecipients(owner.form.id, addresses, { verified: true });
  return owner;
}

async function submitJson(formId: string, fields: Record<string, unknown>): Promise<{ submissionId: string; filtered?: string }> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return (await res.json()) as { submissionId: string; filtered?: string };
}

async function messagesOfForm(formId: string) {
  return t.handle.db.selectFrom('email_messages').selectAll().where('form_id', '=', formId).orderBy('created_at').execute();
}

describe(`email notifications on ${testDialect}`, () => {
  it('emails each non-spam submission once to every verified recipient, exactly as docs/email.md says, and never spam', async () => {
    const [a, b] = [address('a'), address('b')];
    const owner = await ownerNotifying([a, b]);
    const { submissionId } = await submitJson(owner.form.id, { name: 'Ada', email: 'ada@example.org', tags: ['x', 'y'], n: 3 });
    const spam = await submitJson(owner.form.id, { _honey: 'bot', name: 'Spammer' });
    expect(spam.filtered).toBe('spam');
    await waitFor(() => sink.to(a).length === 1 && sink.to(b).length === 1, 15_000, 'one email to each recipient');

    const mail = sink.to(a)[0]!;
    expect(mail.envelope).toEqual({ from: 'formgate@forms.example.com', to: [a] });
    expect(mail.parsed.from?.value).toEqual([{ name: 'Formgate', address: 'formgate@forms.example.com' }]);
    const to = Array.isArray(mail.parsed.to) ? mail.parsed.to.flatMap((x) => x.value) : mail.parsed.to!.value;
    expect(to.map((x) => x.address).sort()).toEqual([a, b].sort());
    expect(mail.parsed.subject).toBe('New submission: Contact');
    expect(mail.parsed.headers.get('x-formgate-submission-id')).toBe(submissionId);
    expect(mail.parsed.replyTo?.value).toEqual([{ name: '', address: 'ada@example.org' }]);

    const stored = await t.services.submissionQueries.getSubmission(owner.account.id, submissionId);
    const text = mail.parsed.text!;
    expect(text).toContain('name: Ada\n');
    expect(text).toContain('email: ada@example.org\n');
    expect(text).toContain('tags: x, y\n');
    expect(text).toContain('n: 3\n');
    // The time as everywhere (formatTime): this account's browser never reported a zone, so UTC.
    const at = new Date(stored.createdAt);
    const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][at.getUTCMonth()];
    const inWords = `${at.getUTCDate()} ${month} ${at.getUTCFullYear()}, ${stored.createdAt.slice(11, 16)} UTC`;
    expect(text).toContain(`time: ${inWords}\n`);
    // XX is no country: said as in chat messages.
    expect(stored.country).toBe('XX');
    expect(text).toContain('country: unknown\n');
    expect(text).toContain(`https://forms.example.com/dashboard/submissions/${submissionId}`);
    const html = mail.parsed.html as string;
    expect(html).toContain('<th align="left" valign="top">tags</th><td style="white-space:pre-wrap">x, y</td>');
    expect(html).toContain(`href="https://forms.example.com/dashboard/submissions/${submissionId}"`);
    expect(html).toContain(`<th align="left">time</th><td>${inWords}</td>`);

    // The spam submission queued nothing, and nothing more arrives once the queue is empty.
    await t.services.outbox.settle();
    const messages = await messagesOfForm(owner.form.id);
    expect(messages.map((m) => [m.submission_id, m.state])).toEqual([
      [submissionId, 'sent'],
      [submissionId, 'sent'],
    ]);
    expect(sink.received.filter((m) => m.parsed.text?.includes('Spammer'))).toEqual([]);
    expect(await t.services.outbox.countPending()).toBe(0);
  });

  it('holds the notifications of an address added on the dashboard until its link is confirmed by a POST, then sends them; the link works once', async () => {
    const c = address('c');
    const owner = await createOwner(t.services);
    await t.services.notifications.setRecipients(owner.form.id, [c], { verified: false, accountId: owner.account.id });
    await waitFor(() => sink.to(c).length === 1, 15_000, 'the verification email');
    const verification = sink.to(c)[0]!;
    expect(verification.parsed.subject).toBe('Confirm notifications for Contact');
    const link = /https:\/\/forms\.example\.com(\/dashboard\/verify-email\/[A-Za-z0-9_-]+)/.exec(verification.parsed.text!)![1]!;

    const before = await submitJson(owner.form.id, { message: 'before verification' });
    await t.services.outbox.settle();
    expect((await messagesOfForm(owner.form.id)).filter((m) => m.kind === 'submission').map((m) => m.state)).toEqual(['held']);
    expect(sink.to(c)).toHaveLength(1);

    // A mail scanner opening the link confirms nothing: the page only offers the button.
    const visitor = new DashboardClient(t);
    const opened = await visitor.get(link);
    expect(opened.res.status).toBe(200);
    expect(opened.html).toContain(`Confirm ${c}`);
    expect(opened.html).not.toContain('Back to the dashboard');
    expect((await t.services.notifications.listRecipients(owner.form.id)).map((r) => r.state)).toEqual(['pending']);

    const confirmed = await visitor.post(link, {});
    expect(confirmed.res.status).toBe(200);
    expect(confirmed.html).toContain('Address confirmed');
    expect(confirmed.html).not.toContain('Back to the dashboard');
    expect((await t.services.notifications.listRecipients(owner.form.id)).map((r) => r.state)).toEqual(['verified']);
    // What arrived while it waited is sent now, once.
    await waitFor(() => sink.to(c).length === 2, 15_000, 'the held submission email');
    expect(sink.to(c)[1]!.parsed.headers.get('x-formgate-submission-id')).toBe(before.submissionId);
    expect((await visitor.get(link)).res.status).toBe(404);
    expect((await visitor.post(link, {})).res.status).toBe(404);

    const after = await submitJson(owner.form.id, { message: 'after verification' });
    await waitFor(() => sink.to(c).length === 3, 15_000, 'the submission email');
    expect(sink.to(c)[2]!.parsed.headers.get('x-formgate-submission-id')).toBe(after.submissionId);
    await t.services.outbox.settle();
    expect(sink.to(c).filter((m) => m.parsed.headers.get('x-formgate-submission-id') === before.submissionId)).toHaveLength(1);
  });

  it('takes Reply-To only from an email field holding one valid address, and no field value ever becomes a header', async () => {
    const r = address('r');
    const owner = await ownerNotifying([r], 'Sales\r\nBcc: boss@evil.example');
    const cases: Array<[unknown, string | undefined]> = [
      ['visitor@example.org', 'visitor@example.org'],
      ['  spaced@example.org ', 'spaced@example.org'],
      ['x@example.org\r\nBcc: victim@evil.example', undefined],
      ['x@example.org\nCc: victim@evil.example', undefined],
      ['one@example.org, two@example.org', undefined],
      ['one@example.org; two@example.org', undefined],
      ['Name <named@example.org>', undefined],
      [['list@example.org'], undefined],
      ['not an address', undefined],
    ];
    const ids: string[] = [];
    for (const [email] of cases) ids.push((await submitJson(owner.form.id, { email, 'X-Injected': 'yes\r\nBcc: other@evil.example' })).submissionId);
    await waitFor(() => sink.to(r).length === cases.length, 15_000, 'every email');
    cases.forEach(([, expected], i) => {
      const mail = sink.to(r).find((m) => m.parsed.headers.get('x-formgate-submission-id') === ids[i])!;
      expect(mail.parsed.replyTo?.value.map((v) => v.address)).toEqual(expected === undefined ? undefined : [expected]);
      expect(mail.envelope.to).toEqual([r]);
      expect(mail.parsed.headers.has('bcc')).toBe(false);
      expect(mail.parsed.headers.has('cc')).toBe(false);
      expect(mail.parsed.headers.has('x-injected')).toBe(false);
      expect(mail.parsed.subject).toBe('New submission: Sales Bcc: boss@evil.example');
    });
    expect(sink.rcptAttempts.filter((x) => x.includes('evil.example'))).toEqual([]);
  });

  it('escapes hostile field names and values in the HTML part and keeps them verbatim in the text part', async () => {
    const h = address('h');
    const owner = await ownerNotifying([h], '<b>Form</b> & "co"');
    await submitJson(owner.form.id, { '<script>alert(1)</script>': '<img src=x onerror=alert(2)>', 'a&b': `"quoted" 'single' </td></tr>` });
    await waitFor(() => sink.to(h).length === 1, 15_000, 'the email');
    const mail = sink.to(h)[0]!;
    const html = mail.parsed.html as string;
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Form');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(html).toContain('&quot;quoted&quot; &#39;single&#39; &lt;/td&gt;&lt;/tr&gt;');
    expect(html).toContain('&lt;b&gt;Form&lt;/b&gt; &amp; &quot;co&quot;');
    expect(mail.parsed.text).toContain('<script>alert(1)</script>: <img src=x onerror=alert(2)>');
    expect(mail.parsed.subject).toBe('New submission: <b>Form</b> & "co"');
  });

  it('retries a 451 after MAIL_RETRY_BASE_MS and delivers once; every attempt is in the email log', async () => {
    const d = address('d');
    let refusals = 0;
    sink.onRecipient((rcpt) => (rcpt === d && refusals++ === 0 ? { code: 451, message: '4.3.0 Try again later' } : undefined));
    const owner = await ownerNotifying([d]);
    const { submissionId } = await submitJson(owner.form.id, { message: 'retry me' });
    await waitFor(() => sink.to(d).length === 1, 15_000, 'the retried email');
    await waitFor(async () => (await messagesOfForm(owner.form.id))[0]?.state === 'sent', 5_000, 'the attempt recorded');
    const log = await t.services.notifications.emailLog(owner.account.id, owner.form.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ kind: 'submission', to: d, state: 'sent', submissionId });
    expect(log[0]!.attempts.map((a) => a.outcome)).toEqual(['retry', 'sent']);
    expect(log[0]!.attempts[0]!.reply).toMatch(/^451 /);
    expect(log[0]!.attempts[1]!.reply).toMatch(/^250 /);
    const gap = Date.parse(log[0]!.attempts[1]!.attemptedAt) - Date.parse(log[0]!.attempts[0]!.attemptedAt);
    expect(gap).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(sink.rcptAttempts.filter((x) => x === d)).toHaveLength(2);
    // Its Message-ID is made from the queued message's ID, the same for every attempt: a mail
    // system that took an attempt whose answer was lost can tell the retry is that message.
    const [queued] = await messagesOfForm(owner.form.id);
    expect(sink.to(d)[0]!.parsed.messageId).toBe(`<${queued!.id}@forms.example.com>`);

    // The dashboard shows the same log.
    sink.onRecipient(() => undefined);
  });

  it('records a 550 as bounced, does not retry it, and sends the address nothing more until it is verified again', async () => {
    const [e, f] = [address('e'), address('f')];
    sink.onRecipient((rcpt) => (rcpt === e ? { code: 550, message: '5.1.1 No such user' } : undefined));
    const owner = await ownerNotifying([e, f]);
    await submitJson(owner.form.id, { message: 'first' });
    await waitFor(async () => (await messagesOfForm(owner.form.id)).some((m) => m.to_address === e && m.state === 'bounced'), 15_000, 'the bounce');
    const recipients = await t.services.notifications.listRecipients(owner.form.id);
    expect(recipients.find((r) => r.address === e)?.state).toBe('bounced');
    const log = await t.services.notifications.emailLog(owner.account.id, owner.form.id);
    const bounced = log.find((l) => l.to === e)!;
    expect(bounced.attempts).toHaveLength(1);
    expect(bounced.attempts[0]).toMatchObject({ outcome: 'bounced' });
    expect(bounced.attempts[0]!.reply).toMatch(/^550 /);

    await submitJson(owner.form.id, { message: 'second' });
    await waitFor(() => sink.to(f).length === 2, 15_000, 'the second email to the good address');
    await t.services.outbox.settle();
    expect(sink.rcptAttempts.filter((x) => x === e)).toHaveLength(1);
    expect((await messagesOfForm(owner.form.id)).filter((m) => m.to_address === e)).toHaveLength(1);
    sink.onRecipient(() => undefined);
  });

  it('sends one digest per period with the period’s non-spam submissions: 50 in full plus the count', async () => {
    const g = address('g');
    const owner = await ownerNotifying([g], 'Digest form');
    await t.services.forms.updateForm(owner.form.id, { notifyMode: 'hourly' });
    // Hourly mode: a submission queues no email of its own.
    await submitJson(owner.form.id, { message: 'live, not in this digest' });
    const inPeriod = Array.from({ length: 52 }, (_, i) => ({
      createdAt: `2030-01-01T09:${String(Math.floor(i / 2)).padStart(2, '0')}:${String((i % 2) * 30).padStart(2, '0')}.000Z`,
      payload: { seq: `item-${String(i).padStart(2, '0')}` },
    }));
    await insertSubmissions(t.services, owner.form.id, [
      ...inPeriod,
      { createdAt: '2030-01-01T09:59:59.999Z', payload: { seq: 'spam-item' }, isSpam: true },
      { createdAt: '2030-01-01T10:00:00.000Z', payload: { seq: 'next-period' } },
      { createdAt: '2030-01-01T08:59:59.999Z', payload: { seq: 'previous-period' } },
    ]);
    const now = new Date('2030-01-01T10:00:30.000Z');
    expect(await t.services.notifications.queueDueDigests(now)).toBe(1);
    expect(await t.services.notifications.queueDueDigests(now)).toBe(0);
    await waitFor(() => sink.to(g).length === 1, 15_000, 'the digest');
    const digest = sink.to(g)[0]!;
    expect(digest.parsed.subject).toBe('Hourly digest: 52 new submissions to Digest form');
    const text = digest.parsed.text!;
    expect(text).toContain('52 new submissions to Digest form between 1 Jan 2030, 09:00 UTC and 1 Jan 2030, 10:00 UTC.');
    expect(text).toContain('seq: item-00\n\ntime: 1 Jan 2030, 09:00 UTC\n');
    for (let i = 0; i < 50; i++) expect(text).toContain(`seq: item-${String(i).padStart(2, '0')}\n`);
    expect(text).not.toContain('item-50');
    expect(text).toContain('… and 2 more');
    for (const outside of ['spam-item', 'next-period', 'previous-period', 'live, not in this digest']) expect(text).not.toContain(outside);
    expect((text.match(/^time: /gm) ?? []).length).toBe(50);
    await t.services.outbox.settle();
    const messages = await messagesOfForm(owner.form.id);
    expect(messages.map((m) => m.kind)).toEqual(['digest']);
    // Its ID holds the period's start time, whose colons may not be in a Message-ID: encoded.
    expect(messages[0]!.id).toContain(':');
    expect(digest.parsed.messageId).toBe(`<${messages[0]!.id.replaceAll(':', '=3a')}@forms.example.com>`);
    expect(digest.raw).toMatch(/^Message-ID:\s+<[A-Za-z0-9._=-]+@forms\.example\.com>\r?$/im);
  });

  it('sends over STARTTLS when the server offers it', async () => {
    const tlsSink = await startSmtpSink({ starttls: true });
    const app = await buildTestApp({ env: { SMTP_URL: tlsSink.url }, mailTransport: { ca: tlsSink.ca! } });
    try {
      const s = address('s');
      const owner = await createOwner(app.services);
      await app.services.notifications.setRecipients(owner.form.id, [s], { verified: true });
      expect((await submit(app, owner.form.id, { json: { m: 1 } }, JSON_ACCEPT)).status).toBe(200);
      await waitFor(() => tlsSink.to(s).length === 1, 15_000, 'the email over STARTTLS');
      expect(tlsSink.to(s)[0]!.secure).toBe(true);
      expect(tlsSink.to(s)[0]!.envelope.from).toBe('formgate@localhost');
    } finally {
      await app.close();
      await tlsSink.close();
    }
  });
});
