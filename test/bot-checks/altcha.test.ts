import { createChallenge } from 'altcha-lib';
import type { Challenge } from 'altcha-lib/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALTCHA_MAX_NUMBER } from '../../src/features/bot-checks/altcha.service.js';
import { fetchChallenge, solveAltcha } from '../helpers/altcha.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { storedSubmission, submit } from '../helpers/submit.js';

let t: AppUnderTest;
let second: AppUnderTest;
let redis: PrivateRedis;
let accountId: string;
let formId: string;

beforeAll(async () => {
  redis = await startPrivateRedis();
  t = await buildTestApp({ env: { REDIS_URL: redis.url } });
  // A second instance on the same database, as behind a load balancer.
  second = await buildTestApp({ database: t.database, env: { REDIS_URL: redis.url } });
  accountId = (await createOwner(t.services)).account.id;
  formId = (await createForm(t.services, accountId, { botCheck: 'altcha', altchaComplexity: 'low' })).id;
});
afterAll(async () => {
  await second?.close();
  await t?.close();
  await redis?.stop();
});

async function post(app: AppUnderTest, target: string, altcha: string | undefined) {
  const res = await submit(app, target, { json: { message: 'Hello', ...(altcha === undefined ? {} : { altcha }) } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { submissionId: string; filtered?: string };
  const row = (await storedSubmission(app, body.submissionId))!;
  expect(JSON.parse(row.payload)).toEqual({ message: 'Hello' });
  return { spam: row.is_spam === 1, reason: row.spam_reason };
}

describe('the challenge endpoint', () => {
  it("answers a signed challenge at the form's complexity, open to any origin and never cached", async () => {
    const res = await t.fetch(`/v1/challenge/${formId}`, { headers: { origin: 'https://shop.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const challenge = (await res.json()) as { algorithm: string; maxnumber: number; salt: string; signature: string };
    expect(challenge.algorithm).toBe('SHA-256');
    expect(challenge.maxnumber).toBe(ALTCHA_MAX_NUMBER.low);
    const params = new URLSearchParams(challenge.salt.split('?')[1]);
    expect(params.get('form')).toBe(formId);
    expect(Number(params.get('expires')) * 1000 - Date.now()).toBeGreaterThan(9 * 60 * 1000);
    expect(Number(params.get('expires')) * 1000 - Date.now()).toBeLessThanOrEqual(10 * 60 * 1000);

    const high = await createForm(t.services, accountId, { altchaComplexity: 'high' });
    expect((await fetchChallenge(t, high.id)).maxnumber).toBe(ALTCHA_MAX_NUMBER.high);
    expect((await fetchChallenge(t, (await createForm(t.services, accountId)).id)).maxnumber).toBe(ALTCHA_MAX_NUMBER.medium);
  });

  it('an unknown form is not_found; the preflight allows GET from anywhere', async () => {
    const res = await t.fetch('/v1/challenge/frm_doesnotexist');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
    const preflight = await t.fetch(`/v1/challenge/${formId}`, { method: 'OPTIONS', headers: { origin: 'https://a.example' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://a.example');
  });

  it('serves the widget script itself, cacheable for long', async () => {
    const res = await t.fetch('/v1/assets/altcha.js?v=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toContain('max-age=31536000');
    expect(await res.text()).toContain('altcha-widget');
  });
});

describe('a solution', () => {
  it('passes once; a replay fails, on this instance and on another one', async () => {
    const solved = await solveAltcha(await fetchChallenge(t, formId));
    expect(await post(t, formId, solved)).toEqual({ spam: false, reason: null });
    expect(await post(t, formId, solved)).toEqual({ spam: true, reason: 'bot_check' });
    expect(await post(second, formId, solved)).toEqual({ spam: true, reason: 'bot_check' });
  });

  it('issued by one instance, passes on another (one signing key per database)', async () => {
    const solved = await solveAltcha(await fetchChallenge(t, formId));
    expect(await post(second, formId, solved)).toEqual({ spam: false, reason: null });
    expect(await post(t, formId, solved)).toEqual({ spam: true, reason: 'bot_check' });
  });

  it('a replay fails while Redis is down (spent solutions live in the database)', async () => {
    const solved = await solveAltcha(await fetchChallenge(t, formId));
    await redis.stop();
    try {
      expect(await post(t, formId, solved)).toEqual({ spam: false, reason: null });
      expect(await post(t, formId, solved)).toEqual({ spam: true, reason: 'bot_check' });
      expect(await post(second, formId, solved)).toEqual({ spam: true, reason: 'bot_check' });
    } finally {
      await redis.start();
    }
  });

  it('fails when expired, for another form, forged, tampered with, missing or not a payload', async () => {
    const form = await t.services.forms.getForm(formId);
    const expired = await t.services.botChecks.altcha.issueChallenge(form, Date.now() - 11 * 60 * 1000);
    expect(await post(t, formId, await solveAltcha(expired))).toEqual({ spam: true, reason: 'bot_check' });

    const other = await createForm(t.services, accountId, { botCheck: 'altcha', altchaComplexity: 'low' });
    const forOther = await solveAltcha(await fetchChallenge(t, other.id));
    expect(await post(t, formId, forOther)).toEqual({ spam: true, reason: 'bot_check' });

    // Signed with a key that is not this Formgate's, though naming the right form.
    const forged = await createChallenge({
      hmacKey: 'not the instance key',
      maxnumber: 1000,
      expires: new Date(Date.now() + 60_000),
      params: { form: formId, issued: String(Date.now() - 60_000) },
    });
    expect(await post(t, formId, await solveAltcha(forged))).toEqual({ spam: true, reason: 'bot_check' });

    const genuine = JSON.parse(Buffer.from(await solveAltcha(await fetchChallenge(t, formId)), 'base64').toString()) as Record<string, unknown>;
    const tampered = { ...genuine, number: (genuine.number as number) + 1 };
    expect(await post(t, formId, Buffer.from(JSON.stringify(tampered)).toString('base64'))).toEqual({ spam: true, reason: 'bot_check' });
    // The salt carries the form and the expiry under the signature: moving either breaks it.
    const moved = { ...genuine, salt: (genuine.salt as string).replace(/expires=\d+/, `expires=${Math.floor(Date.now() / 1000) + 86_400}`) };
    expect(await post(t, formId, Buffer.from(JSON.stringify(moved)).toString('base64'))).toEqual({ spam: true, reason: 'bot_check' });

    for (const junk of [undefined, '', 'not base64 json', Buffer.from('[1,2]').toString('base64'), 'x'.repeat(5000)]) {
      expect(await post(t, formId, junk)).toEqual({ spam: true, reason: 'bot_check' });
    }
    // The untouched genuine solution still passes: none of the failures above spent it.
    expect(await post(t, formId, Buffer.from(JSON.stringify(genuine)).toString('base64'))).toEqual({ spam: false, reason: null });
  });

  it('with minFillSeconds, sent sooner than that after the challenge was issued is too_fast', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'altcha', altchaComplexity: 'low', minFillSeconds: 30 });
    expect(await post(t, form.id, await solveAltcha(await fetchChallenge(t, form.id)))).toEqual({ spam: true, reason: 'too_fast' });
    const earlier = await t.services.botChecks.altcha.issueChallenge(form, Date.now() - 31_000);
    expect(await post(t, form.id, await solveAltcha(earlier))).toEqual({ spam: false, reason: null });
    await expect(t.services.forms.updateForm(form.id, { minFillSeconds: 61 })).rejects.toMatchObject({
      fieldErrors: { minFillSeconds: 'must be a whole number from 0 to 60' },
    });
  });

  it('spent solutions are purged once their challenge expired', async () => {
    const count = async () =>
      Number((await t.handle.db.selectFrom('altcha_spent_solutions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count()).toBeGreaterThan(0);
    expect(await t.services.botChecks.altcha.purgeExpired(new Date())).toBe(0);
    const removed = await t.services.botChecks.altcha.purgeExpired(new Date(Date.now() + 11 * 60 * 1000));
    expect(removed).toBeGreaterThan(0);
    expect(await count()).toBe(0);
  });
});

describe("a visit's start", () => {
  const configOf = (res: Response) => JSON.parse(res.headers.get('x-altcha-config')!) as { challengeurl: string; strings: Record<string, string> };

  it("the next challenge's URL keeps the first challenge's start: a refetch after an expiry is not too_fast", async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'altcha', altchaComplexity: 'low', minFillSeconds: 30 });
    const first = await t.fetch(`/v1/challenge/${form.id}`, { headers: { origin: 'https://shop.example' } });
    expect(first.headers.get('access-control-expose-headers')).toContain('X-Altcha-Config');
    const next = configOf(first).challengeurl;
    // Absolute, on BASE_URL: the widget fetches it from the customer's page.
    expect(next).toMatch(new RegExp(`^https?://[^/]+/v1/challenge/${form.id}\\?since=\\d{13}\\.[\\w-]{22}$`));
    // A visit that began 40 seconds ago: its token, as the first challenge's header would have named it then.
    const since = await t.services.botChecks.altcha.startToken(form, Date.now() - 40_000);
    const later = await t.fetch(`/v1/challenge/${form.id}?since=${since}`);
    const challenge = (await later.json()) as Challenge;
    expect(configOf(later).challengeurl).toContain(`since=${since}`);
    expect(await post(t, form.id, await solveAltcha(challenge))).toEqual({ spam: false, reason: null });
    // Without the start, a challenge fetched just now is too fast.
    expect(await post(t, form.id, await solveAltcha(await fetchChallenge(t, form.id)))).toEqual({ spam: true, reason: 'too_fast' });
  });

  it('a forged, stale, future or other form\'s start counts from now', async () => {
    const form = await createForm(t.services, accountId, { botCheck: 'altcha', altchaComplexity: 'low', minFillSeconds: 30 });
    const other = await createForm(t.services, accountId, { botCheck: 'altcha' });
    const altcha = t.services.botChecks.altcha;
    const old = Date.now() - 40_000;
    const genuine = await altcha.startToken(form, old);
    expect(await altcha.visitStart(form, genuine)).toBe(old);
    const refused = [
      `${old}.${'A'.repeat(22)}`,
      await altcha.startToken(other, old),
      await altcha.startToken(form, Date.now() - 3 * 60 * 60 * 1000),
      await altcha.startToken(form, Date.now() + 60_000),
      genuine.replace(String(old), String(old - 1000)),
      'garbage',
    ];
    for (const since of refused) expect(await altcha.visitStart(form, since), since).toBeUndefined();
    // Through the endpoint: a forged start is no error, and the visit starts now.
    const res = await t.fetch(`/v1/challenge/${form.id}?since=${encodeURIComponent(refused[0]!)}`);
    expect(res.status).toBe(200);
    expect(await post(t, form.id, await solveAltcha((await res.json()) as Challenge))).toEqual({ spam: true, reason: 'too_fast' });
  });

  it("the widget's texts follow the form's language, or the visitor's for auto, in an ASCII header", async () => {
    const german = await createForm(t.services, accountId, { botCheck: 'altcha', language: 'de' });
    const res = await t.fetch(`/v1/challenge/${german.id}`, { headers: { 'accept-language': 'fr' } });
    expect(res.headers.get('content-language')).toBe('de');
    expect(res.headers.get('x-altcha-config')).toMatch(/^[\x20-\x7e]+$/);
    expect(configOf(res).strings).toMatchObject({ label: 'Ich bin kein Roboter', verifying: 'Wird überprüft…', verified: 'Überprüft' });
    const auto = await createForm(t.services, accountId, { botCheck: 'altcha' });
    const french = await t.fetch(`/v1/challenge/${auto.id}`, { headers: { 'accept-language': 'fr-CH, de;q=0.5' } });
    expect(configOf(french).strings.label).toBe('Je ne suis pas un robot');
    expect(configOf(await t.fetch(`/v1/challenge/${auto.id}`)).strings.label).toBe("I'm not a robot");
  });
});

describe('the challenge rate limit', () => {
  it('counts per client and form like submit', async () => {
    const limited = await buildTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const owner = await createOwner(limited.services);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.fetch(`/v1/challenge/${owner.form.id}`)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
