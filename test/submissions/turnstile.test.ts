import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { storedSubmission, submit } from '../helpers/submit.js';
import { startTurnstileStub } from '../helpers/turnstile-stub.js';

let t: AppUnderTest;
let stub: Awaited<ReturnType<typeof startTurnstileStub>>;
let formId: string;

beforeAll(async () => {
  stub = await startTurnstileStub('global-secret');
  t = await buildTestApp({ env: { TURNSTILE_VERIFY_URL: stub.url, TURNSTILE_SECRET_KEY: 'global-secret' } });
  const owner = await createOwner(t.services);
  formId = (await createForm(t.services, owner.account.id, { requireBotCheck: true })).id;
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

async function submitWithToken(token: string | undefined, headers: Record<string, string> = {}, target = formId) {
  const fields: Record<string, string> = { name: 'Ada' };
  if (token !== undefined) fields['cf-turnstile-response'] = token;
  const res = await submit(t, target, { json: fields }, headers);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { submissionId: string; filtered?: string; cached?: boolean };
  const row = await storedSubmission(t, body.submissionId);
  expect(JSON.parse(row!.payload)).toEqual({ name: 'Ada' });
  return { body, row: row! };
}

describe('Turnstile bot check', () => {
  it('a valid token passes, verified with the secret and the client IP', async () => {
    stub.valid.add('good-token');
    const { body, row } = await submitWithToken('good-token');
    expect(body.filtered).toBeUndefined();
    expect(row.is_spam).toBe(0);
    expect(stub.calls.at(-1)).toEqual({ secret: 'global-secret', response: 'good-token', remoteip: '127.0.0.1' });
  });

  it('an invalid or missing token stores spam (never lost)', async () => {
    for (const token of ['bad-token', undefined, '']) {
      const { body, row } = await submitWithToken(token);
      expect(body.filtered).toBe('spam');
      expect(row.is_spam).toBe(1);
    }
  });

  it('an over-long token is spam without asking siteverify', async () => {
    const before = stub.calls.length;
    const { body } = await submitWithToken('x'.repeat(2049));
    expect(body.filtered).toBe('spam');
    expect(stub.calls.length).toBe(before);
  });

  it("uses the form's own secret over TURNSTILE_SECRET_KEY", async () => {
    const owner = await createOwner(t.services);
    const own = await createForm(t.services, owner.account.id, { requireBotCheck: true, turnstileSecret: 'form-secret' });
    stub.valid.add('good-token');
    const { body } = await submitWithToken('good-token', {}, own.id);
    expect(stub.calls.at(-1)!.secret).toBe('form-secret');
    expect(body.filtered).toBe('spam'); // the stub only knows global-secret
  });

  it('an unreachable siteverify stores spam', async () => {
    const unreachable = await buildTestApp({ env: { TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/siteverify', TURNSTILE_SECRET_KEY: 's' } });
    try {
      const owner = await createOwner(unreachable.services);
      const form = await createForm(unreachable.services, owner.account.id, { requireBotCheck: true });
      const res = await submit(unreachable, form.id, { json: { name: 'Ada', 'cf-turnstile-response': 'tok' } });
      expect(res.status).toBe(200);
      expect((await res.json()).filtered).toBe('spam');
    } finally {
      await unreachable.close();
    }
  });

  it('a replay with the same Idempotency-Key does not call siteverify again', async () => {
    stub.valid.add('single-use');
    const first = await submitWithToken('single-use', { 'idempotency-key': 'replay-1' });
    const calls = stub.calls.length;
    stub.valid.delete('single-use'); // tokens are single-use: a second check would fail
    const replay = await submitWithToken('single-use', { 'idempotency-key': 'replay-1' });
    expect(stub.calls.length).toBe(calls);
    expect(replay.body).toEqual({ ok: true, submissionId: first.body.submissionId, cached: true });
  });

  it('forms without the bot check never call siteverify', async () => {
    const owner = await createOwner(t.services);
    const before = stub.calls.length;
    const res = await submit(t, owner.form.id, { json: { a: 1 } });
    expect((await res.json()).filtered).toBeUndefined();
    expect(stub.calls.length).toBe(before);
  });
});
