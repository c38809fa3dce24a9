import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner, insertSubmissions } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let sink: SmtpSink;
let t: AppUnderTest;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({
    env: { SMTP_URL: sink.url, MAIL_RETRY_BASE_MS: '100', BASE_URL: 'https://forms.example.com', SUBMIT_RATE_LIMIT_PER_MINUTE: '0' },
  });
});

afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const address = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;

async function submitJson(formId: string, fields: Record<string, unknown>): Promise<{ submissionId: string; filtered?: string }> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return (await res.json()) as { submissionId: string; filtered?: string };
}

/** An owner whose form confirms to the submitter; `owner` is its verified recipient. */
async function confirmingForm(settings: Record<string, unknown> = {}, name = 'Contact') {
  const owner = await createOwner(t.services, { form: { name, autoReply: { enabled: true }, ...settings } });
  const ownerAddress = address('owner');
  await t.services.notifications.setRecipients(owner.form.id, [ownerAddress], { verified: true });
  return { ...owner, ownerAddress };
}

/** The form's confirmations, each with the reason the outbox logged when it skipped it. */
async function confirmations(formId: string) {
  const rows = await t.handle.db
    .selectFrom('email_messages')
    .selectAll()
    .where('form_id', '=', formId)
    .where('kind', '=', 'confirmation')
    .orderBy('created_at')
    .execute();
  const skips = rows.length === 0 ? [] : await t.handle.db.selectFrom('outbox_attempts').select(['item_id', 'error']).where('item_id', 'in', rows.map((m) => m.id)).where('outcome', '=', 'skipped').execute();
  const reasons = new Map(skips.map((a) => [a.item_id, a.error]));
  return rows.map((m) => ({ ...m, skippedFor: reasons.get(m.id) ?? null }));
}

/** The raw header block of a received message, unfolded, one header a line. */
const headerLines = (raw: string) => raw.split(/\r\n\r\n/)[0]!.replace(/\r\n[ \t]+/g, ' ').split('\r\n');

const unsubscribeUrlOf = (text: string) => /https:\/\/forms\.example\.com(\/v1\/unsubscribe\/[A-Za-z0-9._-]+)/.exec(text)![1]!;

describe(`confirmation emails on ${testDialect}`, () => {
  it('sends one confirmation per valid submission with the templates, Reply-To the owner, the footer and RFC 8058 headers', async () => {
    const visitor = address('visitor');
    const owner = await confirmingForm({
      autoReply: { enabled: true, subject: 'Thanks {{name}} for {{form.name}}', body: 'Dear {{name}},\nwe got: {{message}}\nid {{submission.id}}' },
    }, 'Shop & Co');
    const { submissionId } = await submitJson(owner.form.id, { name: 'Ada <b>', email: visitor, message: '<script>alert(1)</script> {{form.name}}' });
    await waitFor(() => sink.to(visitor).length === 1 && sink.to(owner.ownerAddress).length === 1, 15_000, 'confirmation and notification');

    const mail = sink.to(visitor)[0]!;
    expect(mail.envelope.to).toEqual([visitor]);
    const to = Array.isArray(mail.parsed.to) ? mail.parsed.to.flatMap((x) => x.value) : mail.parsed.to!.value;
    expect(to.map((x) => x.address)).toEqual([visitor]);
    expect(mail.parsed.subject).toBe('Thanks Ada <b> for Shop & Co');
    expect(mail.parsed.replyTo?.value.map((v) => v.address)).toEqual([owner.ownerAddress]);
    expect(mail.parsed.headers.get('x-formgate-submission-id')).toBe(submissionId);
    const unsubscribe = unsubscribeUrlOf(mail.parsed.text!);
    const headers = headerLines(mail.raw);
    expect(headers).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(headers).toContain(`List-Unsubscribe: <https://forms.example.com${unsubscribe}>`);
    expect(mail.parsed.text).toContain(`Dear Ada <b>,\nwe got: <script>alert(1)</script> {{form.name}}\nid ${submissionId}`);
    expect(mail.parsed.text).toContain('the form "Shop & Co" on forms.example.com');
    const html = mail.parsed.html as string;
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('we got: &lt;script&gt;alert(1)&lt;/script&gt; {{form.name}}');
    expect(html).toContain('&quot;Shop &amp; Co&quot; on forms.example.com');
    expect(html).toContain(`<a href="https://forms.example.com${unsubscribe}">`);
    await waitFor(async () => (await confirmations(owner.form.id))[0]?.state === 'sent', 5_000, 'the attempt recorded');
    expect(await confirmations(owner.form.id)).toHaveLength(1);
  });

  it("with language auto, speaks the submission's language (its Accept-Language), as its pages did; a fixed language wins", async () => {
    const auto = await confirmingForm();
    const [german, plain] = [address('de'), address('plain')];
    const res = await submit(t, auto.form.id, { json: { email: german } }, { ...JSON_ACCEPT, 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' });
    expect(res.status).toBe(200);
    await submitJson(auto.form.id, { email: plain });
    const french = await confirmingForm({ language: 'fr' });
    const fixed = address('fr');
    await submit(t, french.form.id, { json: { email: fixed } }, { ...JSON_ACCEPT, 'accept-language': 'de' });
    await waitFor(() => sink.to(german).length === 1 && sink.to(plain).length === 1 && sink.to(fixed).length === 1, 15_000, 'three confirmations');
    expect(sink.to(german)[0]!.parsed.subject).toBe('Wir haben Ihre Nachricht erhalten: Contact');
    expect(sink.to(german)[0]!.parsed.text).toContain('Sie erhalten diese E-Mail');
    expect(sink.to(plain)[0]!.parsed.subject).toBe('We received your message: Contact');
    expect(sink.to(fixed)[0]!.parsed.subject).toMatch(/^Nous avons/);
    const row = await t.handle.db.selectFrom('submissions').select('language').where('form_id', '=', auto.form.id).orderBy('created_at').executeTakeFirstOrThrow();
    expect(row.language).toBe('de');
  });

  it('sends none for spam, for two addresses, for CR/LF tricks or a missing field, and uses the chosen field', async () => {
    const owner = await confirmingForm({ autoReply: { enabled: true, field: 'reply_to' } });
    const [spam, two, crlf, wrongField, good] = [address('spam'), address('two'), address('crlf'), address('wrong'), address('good')];
    await submitJson(owner.form.id, { reply_to: spam, _honey: 'bot' });
    await submitJson(owner.form.id, { reply_to: `${two}, other@example.net` });
    await submitJson(owner.form.id, { reply_to: [two] });
    await submitJson(owner.form.id, { reply_to: `${crlf}\r\nBcc: victim@evil.example` });
    await submitJson(owner.form.id, { email: wrongField });
    await submitJson(owner.form.id, { reply_to: good });
    await waitFor(() => sink.to(good).length === 1, 15_000, 'the one confirmation');
    await t.services.outbox.settle();
    for (const a of [spam, two, crlf, wrongField]) expect(sink.rcptAttempts.filter((x) => x === a)).toEqual([]);
    expect(sink.rcptAttempts.filter((x) => x.includes('evil.example'))).toEqual([]);
    expect((await confirmations(owner.form.id)).map((m) => m.to_address)).toEqual([good]);
  });

  it('sends exactly one per address per hour and exactly the daily cap under 50 concurrent submissions, logging each skip', async () => {
    const same = address('same');
    const hourly = await confirmingForm();
    const capped = await confirmingForm({ autoReplyDailyLimit: 5 });
    const distinct = Array.from({ length: 50 }, (_, i) => address(`d${i}`));
    await Promise.all([
      ...Array.from({ length: 50 }, () => submitJson(hourly.form.id, { email: same })),
      ...distinct.map((a) => submitJson(capped.form.id, { email: a })),
    ]);
    await waitFor(async () => (await confirmations(hourly.form.id)).length === 50 && (await confirmations(capped.form.id)).length === 50, 30_000, 'all queued');
    await t.services.outbox.settle();
    await waitFor(async () => (await confirmations(capped.form.id)).every((m) => m.state === 'sent' || m.state === 'skipped'), 30_000, 'all decided');
    await waitFor(async () => (await confirmations(hourly.form.id)).every((m) => m.state === 'sent' || m.state === 'skipped'), 30_000, 'all decided');

    const h = await confirmations(hourly.form.id);
    expect(h.filter((m) => m.state === 'sent')).toHaveLength(1);
    expect(h.filter((m) => m.skippedFor === 'rate_limited')).toHaveLength(49);
    expect(sink.to(same)).toHaveLength(1);
    const c = await confirmations(capped.form.id);
    expect(c.filter((m) => m.state === 'sent')).toHaveLength(5);
    expect(c.filter((m) => m.skippedFor === 'daily_cap')).toHaveLength(45);
    expect(distinct.reduce((n, a) => n + sink.to(a).length, 0)).toBe(5);

    const log = await t.services.notifications.emailLog(capped.account.id, capped.form.id);
    expect(log.filter((e) => e.kind === 'confirmation' && e.skipReason === 'daily_cap')).toHaveLength(45);
  });

  it('unsubscribes by the GET page and its POST, and by one-click POST; then nothing more to that address on any form', async () => {
    const [paged, oneClick] = [address('paged'), address('oneclick')];
    const first = await confirmingForm();
    await submitJson(first.form.id, { email: paged });
    await submitJson(first.form.id, { email: oneClick });
    await waitFor(() => sink.to(paged).length === 1 && sink.to(oneClick).length === 1, 15_000, 'both confirmations');
    const before = await t.services.suppressions.count();

    const pagedPath = unsubscribeUrlOf(sink.to(paged)[0]!.parsed.text!);
    const page = await t.fetch(`${pagedPath}`);
    const body = await page.text();
    expect(page.status, body).toBe(200);
    expect(body).toContain('<form method="post"><button type="submit">Unsubscribe</button></form>');
    expect(await t.services.suppressions.count()).toBe(before);
    const posted = await t.fetch(`${pagedPath}`, { method: 'POST' });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('You are unsubscribed');

    const oneClickPath = unsubscribeUrlOf(sink.to(oneClick)[0]!.parsed.text!);
    const clicked = await t.fetch(`${oneClickPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(clicked.status).toBe(200);
    expect(await t.services.suppressions.count()).toBe(before + 2);

    // A forged or altered token changes nothing.
    const forged = oneClickPath.slice(0, -3) + (oneClickPath.endsWith('AAA') ? 'BBB' : 'AAA');
    expect((await t.fetch(`${forged}`, { method: 'POST' })).status).toBe(404);
    expect((await t.fetch('/v1/unsubscribe/nonsense')).status).toBe(404);

    const second = await confirmingForm();
    await submitJson(second.form.id, { email: paged.toUpperCase() });
    await submitJson(second.form.id, { email: oneClick });
    await submitJson(first.form.id, { email: oneClick });
    await waitFor(async () => (await confirmations(second.form.id)).filter((m) => m.state === 'skipped').length === 2, 15_000, 'the skips');
    await t.services.outbox.settle();
    expect(sink.to(paged)).toHaveLength(1);
    expect(sink.to(oneClick)).toHaveLength(1);
    expect((await confirmations(second.form.id)).map((m) => m.skippedFor)).toEqual(['suppressed', 'suppressed']);

    expect(await t.services.suppressions.remove(oneClick)).toBe(true);
    expect(await t.services.suppressions.remove(oneClick)).toBe(false);
  });

  it('adds an address whose confirmation got a 550 to the suppression list', async () => {
    const gone = address('gone');
    sink.onRecipient((rcpt) => (rcpt === gone ? { code: 550, message: '5.1.1 No such user' } : undefined));
    const owner = await confirmingForm();
    await submitJson(owner.form.id, { email: gone });
    await waitFor(async () => (await confirmations(owner.form.id))[0]?.state === 'bounced', 15_000, 'the bounce');
    sink.onRecipient(() => undefined);
    const other = await confirmingForm();
    await submitJson(other.form.id, { email: gone });
    await waitFor(async () => (await confirmations(other.form.id))[0]?.skippedFor === 'suppressed', 15_000, 'the skip');
    expect(sink.rcptAttempts.filter((x) => x === gone)).toHaveLength(1);
  });

  it('sends none for a submission released from spam more than 24 hours after it arrived (too_late), one within', async () => {
    const owner = await confirmingForm();
    const [late, early] = [address('late'), address('early')];
    const [lateId, earlyId] = await insertSubmissions(t.services, owner.form.id, [
      { createdAt: new Date(Date.now() - 25 * 3_600_000).toISOString(), payload: { email: late }, isSpam: true },
      { createdAt: new Date(Date.now() - 23 * 3_600_000).toISOString(), payload: { email: early }, isSpam: true },
    ]);
    await t.services.triage.markSubmissions([lateId!, earlyId!], false, owner.account.id);
    await waitFor(() => sink.to(early).length === 1, 15_000, 'the confirmation within 24 h');
    await t.services.outbox.settle();
    const rows = await confirmations(owner.form.id);
    expect(rows.find((m) => m.submission_id === lateId)).toMatchObject({ state: 'skipped', skippedFor: 'too_late' });
    expect(sink.to(late)).toHaveLength(0);
  });
});
