import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formToSettingsView } from '../../src/features/forms/form.types.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { startCaptchaStub } from '../helpers/captcha-stub.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { storedSubmission, submit } from '../helpers/submit.js';
import { startTurnstileStub } from '../helpers/turnstile-stub.js';

let t: AppUnderTest;
let hcaptcha: Awaited<ReturnType<typeof startCaptchaStub>>;
let recaptcha: Awaited<ReturnType<typeof startCaptchaStub>>;
let turnstile: Awaited<ReturnType<typeof startTurnstileStub>>;
let accountId: string;

beforeAll(async () => {
  hcaptcha = await startCaptchaStub('h-global');
  recaptcha = await startCaptchaStub('r-global');
  turnstile = await startTurnstileStub('t-global');
  t = await buildTestApp({
    env: {
      HCAPTCHA_VERIFY_URL: hcaptcha.url,
      HCAPTCHA_SECRET_KEY: 'h-global',
      RECAPTCHA_VERIFY_URL: recaptcha.url,
      RECAPTCHA_SECRET_KEY: 'r-global',
      TURNSTILE_VERIFY_URL: turnstile.url,
      TURNSTILE_SECRET_KEY: 't-global',
    },
  });
  accountId = (await createOwner(t.services)).account.id;
});
afterAll(async () => {
  await t?.close();
  await Promise.all([hcaptcha?.close(), recaptcha?.close(), turnstile?.close()]);
});

async function post(formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await submit(t, formId, { json: { message: 'Hello', ...fields } }, headers);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { submissionId: string; filtered?: string; cached?: boolean };
  const row = (await storedSubmission(t, body.submissionId))!;
  // The bot-check fields are control fields: never stored (nor sent to hooks, which get the payload).
  expect(JSON.parse(row.payload)).toEqual({ message: 'Hello' });
  return { body, row };
}

describe('hCaptcha', () => {
  it('a valid h-captcha-response passes, checked with the secret and the client IP; a bad or missing one is spam (bot_check)', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'hcaptcha' });
    hcaptcha.valid.add('h-good');
    const good = await post(form.id, { 'h-captcha-response': 'h-good' });
    expect(good.row.is_spam).toBe(0);
    expect(hcaptcha.calls.at(-1)).toEqual({ secret: 'h-global', response: 'h-good', remoteip: '127.0.0.1' });
    for (const fields of [{ 'h-captcha-response': 'h-bad' }, {}, { 'cf-turnstile-response': 'h-good' }] as Array<Record<string, string>>) {
      const bad = await post(form.id, fields);
      expect(bad.body.filtered).toBe('spam');
      expect(bad.row.spam_reason).toBe('bot_check');
    }
  });

  it("the form's own secret wins over HCAPTCHA_SECRET_KEY", async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'hcaptcha', hcaptchaSecret: 'h-own' });
    hcaptcha.valid.add('h-good');
    const { row } = await post(form.id, { 'h-captcha-response': 'h-good' });
    expect(hcaptcha.calls.at(-1)!.secret).toBe('h-own');
    expect(row.spam_reason).toBe('bot_check'); // the stub knows only h-global
  });

  it('an unreachable verify service files the submission as spam', async () => {
    const other = await buildTestApp({ env: { HCAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/siteverify', HCAPTCHA_SECRET_KEY: 's' } });
    try {
      const owner = await createOwner(other.services, { form: { botCheck: 'hcaptcha' } });
      const res = await submit(other, owner.form.id, { json: { a: 'b', 'h-captcha-response': 'tok' } });
      expect((await res.json()).filtered).toBe('spam');
    } finally {
      await other.close();
    }
  });
});

describe('reCAPTCHA', () => {
  it('v2 (no score): success decides', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'recaptcha' });
    recaptcha.valid.add('r-v2');
    expect((await post(form.id, { 'g-recaptcha-response': 'r-v2' })).row.is_spam).toBe(0);
    expect((await post(form.id, { 'g-recaptcha-response': 'r-unknown' })).row.spam_reason).toBe('bot_check');
    expect(recaptcha.calls.at(-1)!.secret).toBe('r-global');
  });

  it('v3: a score below recaptchaMinScore (default 0.5) fails, at or above it passes', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'recaptcha' });
    expect(form.recaptchaMinScore).toBe(0.5);
    for (const [token, score] of [['r-low', 0.3], ['r-edge', 0.5], ['r-high', 0.9]] as const) {
      recaptcha.valid.add(token);
      recaptcha.scores.set(token, score);
    }
    expect((await post(form.id, { 'g-recaptcha-response': 'r-low' })).row.spam_reason).toBe('bot_check');
    expect((await post(form.id, { 'g-recaptcha-response': 'r-edge' })).row.is_spam).toBe(0);
    expect((await post(form.id, { 'g-recaptcha-response': 'r-high' })).row.is_spam).toBe(0);

    const strict = await t.services.forms.updateForm(form.id, { recaptchaMinScore: 0.95 });
    expect((await post(strict.id, { 'g-recaptcha-response': 'r-high' })).row.spam_reason).toBe('bot_check');
  });

  it('refuses a minimum score outside 0–1', async () => {
    await expect(createForm(t.services, accountId, { botCheck: 'recaptcha', recaptchaMinScore: 1.5 })).rejects.toMatchObject({
      code: 'validation_failed',
      fieldErrors: { recaptchaMinScore: 'must be a number from 0 to 1' },
    });
  });
});

describe('choosing the vendor', () => {
  it('a replay with the same Idempotency-Key never asks the vendor again', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'hcaptcha' });
    hcaptcha.valid.add('h-once');
    const first = await post(form.id, { 'h-captcha-response': 'h-once' }, { 'idempotency-key': 'k1' });
    const calls = hcaptcha.calls.length;
    hcaptcha.valid.delete('h-once');
    const again = await post(form.id, { 'h-captcha-response': 'h-once' }, { 'idempotency-key': 'k1' });
    expect(hcaptcha.calls.length).toBe(calls);
    expect(again.body).toEqual({ ok: true, submissionId: first.body.submissionId, cached: true });
  });

  it('requireBotCheck keeps meaning Turnstile, both ways', async () => {
    const form = await createForm(t.services, accountId, { requireBotCheck: true });
    expect(form.botCheck).toBe('turnstile');
    turnstile.valid.add('t-good');
    expect((await post(form.id, { 'cf-turnstile-response': 't-good' })).row.is_spam).toBe(0);
    const off = await t.services.forms.updateForm(form.id, { requireBotCheck: false });
    expect(off.botCheck).toBe('none');
    // Turning "Turnstile" off leaves another vendor alone.
    const alt = await t.services.forms.updateForm(form.id, { botCheck: 'altcha' });
    expect((await t.services.forms.updateForm(alt.id, { requireBotCheck: false })).botCheck).toBe('altcha');
  });

  it('a form without a check asks no vendor, and the vendor fields are still never stored', async () => {
    const form = await createForm(t.services, accountId);
    const before = [hcaptcha.calls.length, recaptcha.calls.length, turnstile.calls.length];
    const { row } = await post(form.id, { 'h-captcha-response': 'x', 'g-recaptcha-response': 'y', altcha: 'z' });
    expect(row.is_spam).toBe(0);
    expect([hcaptcha.calls.length, recaptcha.calls.length, turnstile.calls.length]).toEqual(before);
  });

  it('the settings view shows secrets only as "set"', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'recaptcha', recaptchaSecret: 'r-secret', hcaptchaSecret: 'h-secret' });
    const view = formToSettingsView(form);
    expect(view).toMatchObject({ botCheck: 'recaptcha', recaptchaSecret: 'set', hcaptchaSecret: 'set', recaptchaMinScore: 0.5, spamFilter: 'off' });
    expect(JSON.stringify(view)).not.toContain('secret"');
  });
});

describe('a check with no secret anywhere', () => {
  let bare: AppUnderTest;
  beforeAll(async () => {
    bare = await buildTestApp();
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('is refused, naming the secret field of the vendor; ALTCHA needs none', async () => {
    const owner = await createOwner(bare.services);
    for (const [botCheck, field] of [['hcaptcha', 'hcaptchaSecret'], ['recaptcha', 'recaptchaSecret'], ['turnstile', 'turnstileSecret']] as const) {
      await expect(createForm(bare.services, owner.account.id, { botCheck })).rejects.toMatchObject({
        code: 'validation_failed',
        fieldErrors: { [field]: expect.stringContaining('required') },
      });
      await expect(bare.services.forms.updateForm(owner.form.id, { botCheck })).rejects.toMatchObject({ code: 'validation_failed' });
    }
    expect((await createForm(bare.services, owner.account.id, { botCheck: 'hcaptcha', hcaptchaSecret: 'mine' })).botCheck).toBe('hcaptcha');
    expect((await createForm(bare.services, owner.account.id, { botCheck: 'altcha' })).botCheck).toBe('altcha');
    // Clearing the secret of a form that uses it is refused too.
    const form = await createForm(bare.services, owner.account.id, { botCheck: 'recaptcha', recaptchaSecret: 'r' });
    await expect(bare.services.forms.updateForm(form.id, { recaptchaSecret: null })).rejects.toMatchObject({
      fieldErrors: { recaptchaSecret: expect.any(String) },
    });
  });
});
