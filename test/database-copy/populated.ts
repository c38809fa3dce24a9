import { expect } from 'vitest';
import type { Dialect, Executor } from '../../src/platform/db/database.js';
import { hashToken } from '../../src/platform/lib/token-hash.js';
import { insertSuppression } from '../../src/features/notifications/confirmation.repository.js';
import { listTables } from '../../src/features/database-copy/database-copy.repository.js';
import type { AppUnderTest } from '../helpers/app.js';
import { createOwner, insertSubmissions } from '../helpers/factories.js';
import type { HttpsReceiver } from '../helpers/https-receiver.js';
import type { SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

/** What a copy must carry over, made on the source before it. */
export interface Written {
  accountId: string;
  apiKey: string;
  formId: string;
  accessKey: string;
  hookSecret: string;
}

/**
 * Uses every feature of a running app once, through its services and its HTTP endpoints: forms
 * with every setting, submissions (spam of every reason, marked both ways, with an
 * Idempotency-Key), hooks with deliveries, emails (notifications, a confirmation, a password
 * reset) with their attempts in the outbox's log, an integration with its messages, the learning filter, a
 * suppression, sessions, the instance's secrets and settings. Waits until what was queued was sent.
 */
export async function writeWithEveryFeature(t: AppUnderTest, receiver: HttpsReceiver, sink: SmtpSink): Promise<Written> {
  const s = t.services;
  const accessKey = 'form-access-key';
  const owner = await createOwner(s, {
    planId: 'business',
    form: {
      name: 'Everything',
      accessKey,
      successUrl: 'https://site.example/thanks',
      errorUrl: 'https://site.example/oops',
      allowedRedirectHosts: ['site.example'],
      turnstileSiteKey: '0x4AAAAAAAsite',
      blockedTerms: ['casino'],
      blockedEmails: ['@spam.example'],
      allowedOrigins: ['site.example'],
      maxLinks: 2,
      retentionDays: 365,
      storeIp: 'full',
      notifyMode: 'each',
      hcaptchaSecret: 'hc-secret',
      hcaptchaSiteKey: '10000000-ffff-ffff-ffff-000000000001',
      recaptchaSecret: 'rc-secret',
      recaptchaSiteKey: '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI',
      recaptchaMinScore: 0.7,
      altchaComplexity: 'high',
      minFillSeconds: 0,
      spamFilter: 'learn',
      notifySubject: 'New: {{name}}',
      autoReply: { enabled: true, field: 'email', subject: 'Thanks {{name}}', body: 'We got it.' },
      autoReplyDailyLimit: 50,
      thanksTitle: 'Danke',
      thanksMessage: 'Wir melden uns.',
      language: 'de',
      requiredFields: ['name'],
    },
  });
  // A second form with a bot check and inactive: more settings, no submissions.
  await s.forms.createForm(owner.account.id, { name: 'Closed', isActive: false, botCheck: 'turnstile', requireBotCheck: true, turnstileSecret: 'ts-secret' });
  const formId = owner.form.id;
  await s.notifications.setRecipients(formId, ['owner@example.net'], { verified: true });
  const hookRes = await t.fetch('/v1/api/hooks', {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ formId, targetUrl: `${receiver.url}/hook` }),
  });
  expect(hookRes.status).toBe(201);
  const hookSecret = ((await hookRes.json()) as { hook: { secret: string } }).hook.secret;
  await s.integrations.addIntegration(formId, { kind: 'ntfy', name: 'Phone', url: `${receiver.url}/formgate-topic` });

  const post = async (fields: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await submit(t, formId, { json: { access_key: accessKey, ...fields } }, { ...JSON_ACCEPT, origin: 'https://site.example', ...headers });
    expect(res.status).toBe(200);
    return ((await res.json()) as { submissionId: string }).submissionId;
  };
  const ham = await post({ name: 'Ada', email: 'ada@example.org', message: 'Hello there' }, { 'idempotency-key': 'first-one' });
  await post({ name: 'Grace', email: 'grace@example.org', message: 'A question about pricing' });
  await post({ name: 'Bot', _honey: 'filled' });
  await post({ name: 'Casino', message: 'best casino bonus' });
  await post({ name: 'Mailer', email: 'x@spam.example' });
  const links = await post({ name: 'Links', message: 'http://a.example http://b.example http://c.example' });
  await s.triage.markSubmission(links, false);
  await s.triage.markSubmission(ham, true);
  await s.triage.markSubmission(ham, false);

  await s.sessions.startSession(owner.account.id, owner.account.id, { userAgent: 'Mozilla/5.0 Test', ip: '203.0.113.9' });
  await s.passwordResets.requestReset(owner.account.email);
  await insertSuppression(s.handle.db, { address_hash: hashToken('gone@example.org'), reason: 'unsubscribe', created_at: new Date().toISOString() });
  await s.admin.recordPurge(0);

  // Many rows sharing milliseconds: the API's cursors must page them the same way after the copy.
  const at = Date.parse('2026-06-01T10:00:00.000Z');
  await insertSubmissions(
    s,
    formId,
    Array.from({ length: 45 }, (_, i) => ({ createdAt: new Date(at + Math.floor(i / 4)).toISOString(), payload: { n: i, note: `row ${i}` }, isSpam: i % 7 === 0 })),
  );

  await waitFor(async () => (await s.outbox.countPending()) === 0, 20_000, 'the outbox to empty');
  await waitFor(() => receiver.received.some((r) => r.url === '/hook') && receiver.received.some((r) => r.body.includes('formgate-topic')), 20_000, 'a hook and an ntfy message');
  await waitFor(() => sink.received.length >= 3, 20_000, 'notification, confirmation and reset emails');
  await waitFor(async () => (await rowsBeingSent(s.handle.db)) === 0, 20_000, 'every send recorded');
  return { accountId: owner.account.id, apiKey: owner.apiKey, formId, accessKey, hookSecret };
}

async function rowsBeingSent(db: Executor): Promise<number> {
  const pending = (table: 'hook_deliveries' | 'email_messages' | 'integration_messages') =>
    db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('state', 'in', ['pending', 'sending']).executeTakeFirstOrThrow();
  const counts = await Promise.all([pending('hook_deliveries'), pending('email_messages'), pending('integration_messages')]);
  return counts.reduce((sum, c) => sum + Number(c.n), 0);
}

/** Tables that every feature above writes at least one row to. */
export const WRITTEN_TABLES = [
  'accounts', 'api_keys', 'forms', 'submissions', 'idempotency_keys', 'hooks', 'hook_deliveries', 'email_recipients',
  'email_messages', 'outbox_attempts', 'email_suppressions', 'integrations', 'integration_messages',
  'spam_filter_models', 'spam_filter_tokens', 'spam_filter_lessons', 'sessions', 'password_resets', 'form_counts',
  'form_hourly_counts', 'instance_secrets', 'instance_settings',
];

/** Every row of every table the copier copies, each table in primary-key order. */
export async function dumpTables(db: Executor, dialect: Dialect): Promise<Record<string, Record<string, unknown>[]>> {
  const dump: Record<string, Record<string, unknown>[]> = {};
  const loose = db as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  for (const table of await listTables(db, dialect)) {
    if (table.name === 'submissions_fts_watermark') continue;
    const key = table.primaryKey.length > 0 ? table.primaryKey : table.columns.map((c) => c.name);
    // Sorted here, by code point: the two databases' collations need not agree.
    const sortKey = (row: Record<string, unknown>) => JSON.stringify(key.map((c) => row[c]));
    const rows = await loose.selectFrom(table.name).selectAll().execute();
    dump[table.name] = rows.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  }
  return dump;
}

/** A dump with every value as SQLite would give it back, to compare the two databases. */
export function normalized(dump: Record<string, Record<string, unknown>[]>): Record<string, Record<string, unknown>[]> {
  const value = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v);
  const canonical = (rows: Record<string, unknown>[]) =>
    rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, value(v)]))).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return Object.fromEntries(Object.entries(dump).map(([table, rows]) => [table, canonical(rows)]));
}

