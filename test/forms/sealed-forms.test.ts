import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Encrypter, armor } from 'age-encryption';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createApiKey, createForm } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Sealed forms end to end: the fields a visitor's browser encrypted (here, this test with the
 * age-encryption package, to an identity Debian's age-keygen made) reach no table, log line,
 * email, chat message, hook or export in clear, and `age -d` opens what the API returns. A plain
 * form beside it, sent the same way, shows that each place looked at would have shown a value.
 */

const PASSWORD = 'correct horse battery';
const logText: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logText.push(chunk.toString('utf8'));
    done();
  },
});

let t: AppUnderTest;
let sink: SmtpSink;
let receiver: HttpsReceiver;
let keyDir: string;
let keyFile: string;
let recipient: string;

/** Encrypts the fields as the client script does: JSON, to every recipient, armored. */
async function seal(fields: Record<string, unknown>, recipients: string[] = [recipient]): Promise<string> {
  const encrypter = new Encrypter();
  for (const r of recipients) encrypter.addRecipient(r);
  return armor.encode(await encrypter.encrypt(JSON.stringify(fields)));
}

/** What Debian's age makes of an armored file with the test's identity. */
const ageDecrypt = (armored: string): string => execFileSync('/usr/bin/age', ['-d', '-i', keyFile], { input: armored }).toString('utf8');

const isSerializedBuffer = (value: unknown): value is { type: 'Buffer'; data: number[] } =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data);

/** Every row of every table, as text (binary columns, such as SQLite's search index pages, as bytes). */
async function dumpEveryTable(): Promise<{ tables: number; text: string }> {
  const names =
    testDialect === 'postgres'
      ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.handle.db)).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.handle.db)).rows;
  const parts: string[] = [];
  for (const { name } of names) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(t.handle.db);
    parts.push(JSON.stringify(rows, (_key, value: unknown) => (isSerializedBuffer(value) ? Buffer.from(value.data).toString('latin1') : value)));
  }
  return { tables: names.length, text: parts.join('\n') };
}

beforeAll(async () => {
  keyDir = mkdtempSync(join(tmpdir(), 'formgate-sealed-'));
  keyFile = join(keyDir, 'key.txt');
  execFileSync('/usr/bin/age-keygen', ['-o', keyFile], { stdio: 'ignore' });
  recipient = /# public key: (age1[a-z0-9]+)/.exec(readFileSync(keyFile, 'utf8'))![1]!;
  sink = await startSmtpSink();
  receiver = await startHttpsReceiver();
  receiver.respond((_req, res) => res.writeHead(200).end('ok'));
  t = await buildTestApp({
    env: { SMTP_URL: sink.url, HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '25' },
    hookTransport: { ca: receiver.ca },
    loggerInstance: pino({ level: 'debug' }, capture),
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await sink?.close();
  await receiver?.close();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
});

const unique = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;

/** An account with a password, an API key, and a form with email, a confirmation, a hook and a chat integration. */
async function formWithEverything(sealed: boolean) {
  const account = await createAccount(t.services, { email: unique('owner'), password: PASSWORD, planId: 'pro' });
  const apiKey = await createApiKey(t.services, account.id);
  const form = await createForm(t.services, account.id, {
    autoReply: { enabled: true, field: 'email' },
    ...(sealed ? { sealed: { recipients: [{ recipient, label: 'laptop' }] } } : {}),
  });
  const notify = unique('notify');
  await t.services.notifications.setRecipients(form.id, [notify], { verified: true });
  const hook = await t.services.hooks.createHook(account.id, { formId: form.id, targetUrl: `${receiver.url}/hook/${form.id}` });
  await t.services.integrations.addIntegration(form.id, { kind: 'slack', url: `${receiver.url}/chat/${form.id}` });
  return { account, auth: { authorization: `Bearer ${apiKey}` }, form, notify, hook };
}

describe(`sealed forms on ${testDialect}`, () => {
  it('store, log, mail, chat, hook and export only the ciphertext, which age -d opens', async () => {
    const marker = `sealedmarker${randomBase62(12)}`;
    const plainMarker = `plainmarker${randomBase62(12)}`;
    const sealedOwner = await formWithEverything(true);
    const plainOwner = await formWithEverything(false);
    const visitor = unique('visitor');
    const plainVisitor = unique('plainvisitor');
    const fields = { email: visitor, message: `Hello ${marker}`, topics: ['a', marker] };
    const armored = await seal(fields);

    // JSON and urlencoded bodies alike; the honeypot travels in clear beside the ciphertext.
    const json = await submit(t, sealedOwner.form.id, { json: { sealed: armored, _honey: '' } }, JSON_ACCEPT);
    expect(json.status).toBe(200);
    const { submissionId } = (await json.json()) as { submissionId: string };
    const urlencoded = await submit(t, sealedOwner.form.id, { form: { sealed: await seal({ message: marker }), _gotcha: '' } }, JSON_ACCEPT);
    expect(urlencoded.status).toBe(200);
    const plain = await submit(t, plainOwner.form.id, { json: { email: plainVisitor, message: `Hello ${plainMarker}` } }, JSON_ACCEPT);
    expect(plain.status).toBe(200);

    // Everything that follows a submission has happened for both forms.
    const chat = (formId: string) => receiver.received.filter((r) => r.url === `/chat/${formId}`);
    const hooks = (formId: string) => receiver.received.filter((r) => r.url === `/hook/${formId}`);
    await waitFor(
      () =>
        sink.to(sealedOwner.notify).length === 2 && sink.to(plainOwner.notify).length === 1 && sink.to(plainVisitor).length === 1 &&
        chat(sealedOwner.form.id).length === 2 && chat(plainOwner.form.id).length === 1 &&
        hooks(sealedOwner.form.id).length === 2 && hooks(plainOwner.form.id).length === 1,
      20_000,
      'emails, chat messages and hooks of both forms',
    );

    // The API returns the ciphertext exactly as posted, and Debian's age decrypts it to the fields.
    const res = await t.fetch(`/v1/api/submissions/${submissionId}`, { headers: sealedOwner.auth });
    const { submission } = (await res.json()) as { submission: { payload: Record<string, unknown> } };
    expect(submission.payload).toEqual({ sealed: armored });
    expect(JSON.parse(ageDecrypt(submission.payload.sealed as string))).toEqual(fields);

    // No table holds the marker; the plain form's marker is found, so the dump reads them all.
    const dump = await dumpEveryTable();
    expect(dump.tables).toBeGreaterThan(20);
    expect(dump.text).toContain(plainMarker);
    expect(dump.text).toContain(armored.split('\n')[1]);
    expect(dump.text).not.toContain(marker);

    // Emails: the owner hears that a sealed submission arrived, with the link; the visitor gets no confirmation.
    const sealedMail = sink.to(sealedOwner.notify)[0]!;
    expect(sealedMail.parsed.subject).toBe('New submission: Contact');
    expect(sealedMail.parsed.text).toContain('a sealed submission arrived');
    expect(sealedMail.parsed.text).toContain(`/dashboard/submissions/${submissionId}`);
    expect(sink.to(plainOwner.notify)[0]!.raw).toContain(plainMarker);
    expect(sink.to(visitor)).toHaveLength(0);
    for (const mail of sink.received) {
      expect(mail.raw).not.toContain(marker);
      expect(mail.raw).not.toContain(armored.split('\n')[1]);
    }

    // Chat: the same words without values; the hook: the ciphertext.
    expect(chat(plainOwner.form.id)[0]!.body).toContain(plainMarker);
    for (const message of chat(sealedOwner.form.id)) {
      expect(message.body).toContain('A sealed submission arrived');
      expect(message.body).not.toContain(marker);
      expect(message.body).not.toContain('BEGIN AGE');
    }
    const hookBodies = hooks(sealedOwner.form.id).map((h) => JSON.parse(h.body) as Record<string, unknown>);
    expect(hookBodies.find((b) => b.id === submissionId)).toMatchObject({ fields: { sealed: armored } });
    for (const body of hookBodies) expect(JSON.stringify(body)).not.toContain(marker);

    // Exports carry the ciphertext as stored: the CSV cell decrypts as it is.
    const browser = new DashboardClient(t);
    await browser.get('/dashboard/login');
    expect((await browser.post('/dashboard/login', { email: sealedOwner.account.email, password: PASSWORD })).res.status).toBe(303);
    const csv = (await browser.get(`/dashboard/forms/${sealedOwner.form.id}/export.csv`)).html;
    expect(csv).not.toContain(marker);
    const cells = [...csv.matchAll(/"(-----BEGIN AGE ENCRYPTED FILE-----[^"]+)"/g)].map((m) => m[1]!);
    expect(cells).toHaveLength(2);
    expect(cells.map((cell) => JSON.parse(ageDecrypt(cell)) as unknown)).toContainEqual(fields);
    const ndjson = (await browser.get(`/dashboard/forms/${sealedOwner.form.id}/export.ndjson`)).html;
    expect(ndjson).toContain(JSON.stringify(armored));
    expect(ndjson).not.toContain(marker);

    // The server searches nothing of a sealed form: a word of its fields lists every submission, marking none.
    const searched = (await browser.get(`/dashboard/forms/${sealedOwner.form.id}/submissions?q=Hello`)).html;
    expect(searched).toContain(submissionId);
    expect(searched).not.toContain('<mark>');

    // No log line, at debug level, holds the marker.
    expect(logText.join('').length).toBeGreaterThan(0);
    expect(logText.join('')).not.toContain(marker);
  }, 60_000);

  it('refuses anything but one armored age file with seal_required, storing nothing and caching no answer', async () => {
    const account = await createAccount(t.services, { planId: 'pro' });
    const form = await createForm(t.services, account.id, { sealed: { recipients: [{ recipient, label: null }] } });
    const armored = await seal({ message: 'hi' });
    const passphrase = new Encrypter();
    passphrase.setPassphrase('secret words');
    passphrase.setScryptWorkFactor(2);
    const scrypt = armor.encode(await passphrase.encrypt('{"message":"hi"}'));
    const idempotencyKeys = async () =>
      Number((await t.handle.db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll<string | number>().as('n')).where('form_id', '=', form.id).executeTakeFirstOrThrow()).n);

    const refused: Array<[string, Parameters<typeof submit>[2], string | undefined]> = [
      ['a plain JSON body', { json: { email: 'ada@example.com', message: 'hello' } }, undefined],
      ['a plain urlencoded body', { form: { message: 'hello' } }, undefined],
      ['the ciphertext and a field in clear', { json: { sealed: armored, email: 'ada@example.com' } }, undefined],
      ['an empty body', { json: {} }, undefined],
      ['not armored', { json: { sealed: 'hello' } }, 'sealed'],
      ['armor with a broken header', { json: { sealed: armored.replace('YWdl', 'eWdl') } }, 'sealed'],
      ['a passphrase instead of recipients', { json: { sealed: scrypt } }, 'sealed'],
      ['two values', { form: { sealed: [armored, armored] } }, 'sealed'],
      ['a number', { json: { sealed: 5 } }, 'sealed'],
    ];
    for (const [what, body, field] of refused) {
      const res = await submit(t, form.id, body, { ...JSON_ACCEPT, 'idempotency-key': `k-${what}` });
      const answer = (await res.json()) as { error: string; fieldErrors?: Record<string, string> };
      expect({ what, status: res.status, error: answer.error }).toEqual({ what, status: 400, error: 'seal_required' });
      expect(Object.keys(answer.fieldErrors ?? {}), what).toEqual(field ? [field] : []);
    }
    // A browser's native post gets the hosted error page with the status.
    const page = await submit(t, form.id, { form: { message: 'hello' } }, BROWSER_ACCEPT);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('encrypts what you type');
    expect(await countStored(t, form.id)).toBe(0);
    expect(await idempotencyKeys()).toBe(0);

    // A refused key is not spent: the same key with a sealed body is stored, and replays that.
    const first = await submit(t, form.id, { json: { sealed: armored } }, { ...JSON_ACCEPT, 'idempotency-key': 'k-a plain JSON body' });
    expect(first.status).toBe(200);
    const again = await submit(t, form.id, { json: { email: 'x@example.com' } }, { ...JSON_ACCEPT, 'idempotency-key': 'k-a plain JSON body' });
    expect(again.status).toBe(400);
    expect(await countStored(t, form.id)).toBe(1);

    // The honeypot still works in clear: a bot's sealed post is stored as spam.
    const bot = await submit(t, form.id, { json: { sealed: armored, _honey: 'http://spam.example' } }, JSON_ACCEPT);
    expect(await bot.json()).toMatchObject({ ok: true, filtered: 'spam' });
  });

  it('takes no files: a file part is refused, and files and sealing exclude each other in the settings', async () => {
    const account = await createAccount(t.services, { planId: 'pro' });
    const form = await createForm(t.services, account.id, { sealed: { recipients: [{ recipient, label: null }] } });
    const body = new FormData();
    body.append('sealed', await seal({ message: 'hi' }));
    body.append('attachment', new Blob(['secret file content']), 'a.txt');
    const res = await submit(t, form.id, { multipart: body }, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'seal_required', fieldErrors: { sealed: 'a sealed form takes no files' } });
    expect(await countStored(t, form.id)).toBe(0);
    // Without a file part, multipart is a body like the others.
    const withoutFile = new FormData();
    withoutFile.append('sealed', await seal({ message: 'hi' }));
    expect((await submit(t, form.id, { multipart: withoutFile }, JSON_ACCEPT)).status).toBe(200);

    await expect(t.services.forms.updateForm(form.id, { files: 'store' })).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { files: 'a sealed form cannot keep files' } });
    const keeping = await createForm(t.services, account.id, { files: 'store' });
    await expect(t.services.forms.updateForm(keeping.id, { sealed: { recipients: [{ recipient, label: null }] } })).rejects.toMatchObject({ fieldErrors: { sealed: 'a form that keeps files cannot be sealed' } });
    await expect(createForm(t.services, account.id, { files: 'store', sealed: { recipients: [{ recipient, label: null }] } })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('shows the setting on the API Form, validates recipients and unseals for new submissions only', async () => {
    const account = await createAccount(t.services, { planId: 'pro' });
    const auth = { authorization: `Bearer ${await createApiKey(t.services, account.id)}` };
    const plain = await createForm(t.services, account.id);
    const second = await t.services.forms.addSealedRecipient(plain.id, { recipient, label: ' backup ' });
    const other = 'age1' + recipient.slice(4, -6) + 'qqqqqq';
    const forms = async () => ((await (await t.fetch('/v1/api/forms', { headers: auth })).json()) as { forms: Array<{ id: string; sealed: unknown }> }).forms;
    expect((await forms()).find((f) => f.id === plain.id)?.sealed).toEqual({ recipients: [{ recipient, label: 'backup' }] });
    expect(second.sealed).toEqual({ recipients: [{ recipient, label: 'backup' }] });

    // A recipient is an age X25519 one, its checksum included; post-quantum and tag recipients are not taken.
    for (const bad of [other, 'age1xyz', recipient.toUpperCase(), `${recipient} `.repeat(2).trim(), 'AGE-SECRET-KEY-1ABC']) {
      await expect(t.services.forms.updateForm(plain.id, { sealed: { recipients: [{ recipient: bad, label: null }] } }), bad).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { sealed: expect.any(String) } });
    }
    await expect(t.services.forms.updateForm(plain.id, { sealed: { recipients: [] } })).rejects.toMatchObject({ code: 'validation_failed' });

    const stored = await submit(t, plain.id, { json: { sealed: await seal({ message: 'before' }) } }, JSON_ACCEPT);
    expect(stored.status).toBe(200);
    await t.services.forms.updateForm(plain.id, { sealed: null });
    expect((await forms()).find((f) => f.id === plain.id)?.sealed).toBeNull();
    const clear = await submit(t, plain.id, { json: { message: 'after' } }, JSON_ACCEPT);
    expect(clear.status).toBe(200);
    const { submissionId } = (await stored.json()) as { submissionId: string };
    const res = await t.fetch(`/v1/api/submissions/${submissionId}`, { headers: auth });
    expect(JSON.parse(ageDecrypt(((await res.json()) as { submission: { payload: { sealed: string } } }).submission.payload.sealed))).toEqual({ message: 'before' });
  });
});
