import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { countStored, JSON_ACCEPT, storedSubmission, submit } from '../helpers/submit.js';
import { startTurnstileStub } from '../helpers/turnstile-stub.js';

let t: AppUnderTest;
let stub: Awaited<ReturnType<typeof startTurnstileStub>>;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  stub = await startTurnstileStub('secret');
  t = await buildTestApp({ env: { TURNSTILE_VERIFY_URL: stub.url, TURNSTILE_SECRET_KEY: 'secret' } });
  owner = await createOwner(t.services);
  stub.valid.add('good-token');
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

const rules = {
  blockedTerms: ['Casino', 'cheap pills'],
  blockedEmails: ['spammer@example.net', '@spam.example'],
  maxLinks: 2,
};

/** Posts the fields and returns the answer and the stored row's verdict. */
async function post(formId: string, fields: Record<string, unknown>) {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { submissionId: string; filtered?: string };
  const row = (await storedSubmission(t, body.submissionId))!;
  return { body, isSpam: row.is_spam, spamReason: row.spam_reason };
}

describe('per-form spam rules', () => {
  let formId: string;
  beforeAll(async () => {
    formId = (await createForm(t.services, owner.account.id, rules)).id;
  });

  it.each([
    [{ message: 'Best CASINO bonus' }, 'blocked_term'],
    [{ tags: ['ok', 'buy cheap pills now'] }, 'blocked_term'],
    [{ email: 'Spammer@Example.NET' }, 'blocked_email'],
    [{ email: 'bot@spam.example' }, 'blocked_email'],
    [{ contact: ' x@mail.spam.example ' }, 'blocked_email'],
    [{ message: 'http://a.example https://b.example www.c.example' }, 'too_many_links'],
    [{ a: 'see https://a.example', b: ['http://b.example', 'www.c.example'] }, 'too_many_links'],
  ])('%j is spam because of %s, stored and answered like a honeypot hit', async (fields, reason) => {
    const { body, isSpam, spamReason } = await post(formId, fields);
    expect(body.filtered).toBe('spam');
    expect(isSpam).toBe(1);
    expect(spamReason).toBe(reason);
  });

  it.each([
    [{ message: 'Casinos are not in this one', note: 'fine' }, 'blocked_term'],
    [{ message: 'hello', email: 'friend@notspam.example' }, null],
    [{ email: 'someone@example.net' }, null],
    [{ email: 'list spammer@example.net, b@c.d' }, null],
    [{ message: 'https://www.a.example and http://b.example' }, null],
    [{ n: 42, ok: true, none: null }, null],
  ])('%j gives %s', async (fields, reason) => {
    const { body, isSpam, spamReason } = await post(formId, fields);
    expect(spamReason).toBe(reason);
    expect(isSpam).toBe(reason === null ? 0 : 1);
    expect(body.filtered).toBe(reason === null ? undefined : 'spam');
  });

  it('checks terms, then emails, then links: the first match decides', async () => {
    const all = { m: 'casino http://a https://b http://c', email: 'bot@spam.example' };
    expect((await post(formId, all)).spamReason).toBe('blocked_term');
    expect((await post(formId, { m: 'http://a https://b http://c', email: 'bot@spam.example' })).spamReason).toBe('blocked_email');
  });

  it('the honeypot comes first, the bot check last (no token is spent on a rule match)', async () => {
    const guarded = (await createForm(t.services, owner.account.id, { ...rules, requireBotCheck: true })).id;
    const callsBefore = stub.calls.length;
    expect((await post(guarded, { _honey: 'x', message: 'casino', 'cf-turnstile-response': 'good-token' })).spamReason).toBe('honeypot');
    expect((await post(guarded, { message: 'casino', 'cf-turnstile-response': 'good-token' })).spamReason).toBe('blocked_term');
    expect(stub.calls.length).toBe(callsBefore);
    expect((await post(guarded, { message: 'hello', 'cf-turnstile-response': 'bad-token' })).spamReason).toBe('bot_check');
    expect((await post(guarded, { message: 'hello', 'cf-turnstile-response': 'good-token' })).spamReason).toBeNull();
    expect(stub.calls.length).toBe(callsBefore + 2);
  });

  it('spamReason is in the API Submission', async () => {
    const { body } = await post(formId, { message: 'casino' });
    const res = await t.fetch(`/v1/api/submissions/${body.submissionId}`, { headers: owner.auth });
    expect(((await res.json()) as { submission: unknown }).submission).toMatchObject({ isSpam: 1, spamReason: 'blocked_term' });
    const clean = await post(formId, { message: 'hello' });
    const res2 = await t.fetch(`/v1/api/submissions/${clean.body.submissionId}`, { headers: owner.auth });
    expect(((await res2.json()) as { submission: unknown }).submission).toMatchObject({ isSpam: 0, spamReason: null });
  });
});

describe('allowed origins', () => {
  let formId: string;
  beforeAll(async () => {
    formId = (await createForm(t.services, owner.account.id, { allowedOrigins: ['www.example.com', 'shop.example.com:8443'] })).id;
  });

  async function attempt(headers: Record<string, string>) {
    const before = await countStored(t, formId);
    const res = await submit(t, formId, { json: { name: 'Ada' } }, { ...JSON_ACCEPT, ...headers });
    return { status: res.status, body: (await res.json()) as { error?: string; ok?: boolean }, stored: (await countStored(t, formId)) - before };
  }

  it('accepts a listed Origin host (a port-less entry matches any port)', async () => {
    expect(await attempt({ origin: 'https://www.example.com' })).toMatchObject({ status: 200, stored: 1 });
    expect(await attempt({ origin: 'http://WWW.example.com:8080' })).toMatchObject({ status: 200, stored: 1 });
    expect(await attempt({ origin: 'https://shop.example.com:8443' })).toMatchObject({ status: 200, stored: 1 });
  });

  it('refuses any other Origin with 403 origin_not_allowed and stores nothing, whatever the Referer', async () => {
    for (const origin of ['https://evil.example', 'https://example.com', 'https://shop.example.com', 'null']) {
      const result = await attempt({ origin, referer: 'https://www.example.com/contact' });
      expect(result).toMatchObject({ status: 403, stored: 0, body: { error: 'origin_not_allowed' } });
    }
  });

  it('without Origin, the Referer host decides', async () => {
    expect(await attempt({ referer: 'https://www.example.com/contact?x=1' })).toMatchObject({ status: 200, stored: 1 });
    expect(await attempt({ referer: 'https://evil.example/www.example.com' })).toMatchObject({ status: 403, stored: 0, body: { error: 'origin_not_allowed' } });
  });

  it('with neither header, the submission is not allowed', async () => {
    expect(await attempt({})).toMatchObject({ status: 403, stored: 0, body: { error: 'origin_not_allowed' } });
  });

  it('in redirect mode the error goes to the error URL; the preflight answers as before', async () => {
    const withErrorUrl = (await createForm(t.services, owner.account.id, { allowedOrigins: ['www.example.com'], errorUrl: 'https://www.example.com/oops' })).id;
    const res = await submit(t, withErrorUrl, { form: { name: 'Ada' } }, { origin: 'https://evil.example' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://www.example.com/oops?error=origin_not_allowed');
    const preflight = await t.fetch(`/v1/submit/${formId}`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://evil.example');
  });

  it('a form without the setting accepts any origin', async () => {
    const open = (await createForm(t.services, owner.account.id)).id;
    const res = await submit(t, open, { json: { name: 'Ada' } }, { ...JSON_ACCEPT, origin: 'https://anything.example' });
    expect(res.status).toBe(200);
  });
});
