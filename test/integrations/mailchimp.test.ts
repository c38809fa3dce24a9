import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { MailchimpStandIn } from '../helpers/mailchimp-stand-in.js';
import { JSON_ACCEPT, submit, type Body } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

const KEY = '0123456789abcdef0123456789abcdef-us21';
let mailchimp: MailchimpStandIn;
let t: AppUnderTest;
let audiences = 0;

beforeAll(async () => {
  mailchimp = new MailchimpStandIn();
  await mailchimp.start();
  t = await buildTestApp({ env: { HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '200', MAILCHIMP_API_URL: mailchimp.server.url } });
});
afterAll(async () => {
  await t?.close();
  await mailchimp?.server.stop();
});

function newAudience(apiKey = KEY): string {
  const id = `aud${String(++audiences).padStart(7, '0')}`;
  mailchimp.createAudience(id, apiKey);
  return id;
}

async function send(formId: string, body: Body): Promise<string> {
  const res = await submit(t, formId, body, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

const attemptsOf = async (id: string) => (await t.services.integrations.listAttempts(id, 100)).reverse();
const settledAll = () => waitFor(async () => (await t.services.outbox.countPending()) === 0, 15_000, 'nothing pending');

describe(`Mailchimp integrations on ${testDialect}`, () => {
  it('signs up only a submission with consent and a valid email, as pending; the others are skipped, spam never leaves', async () => {
    const { form, account } = await createOwner(t.services);
    const audience = newAudience();
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: KEY, audience });
    expect(integration).toMatchObject({ kind: 'mailchimp', name: 'Mailchimp', settings: { audience, dataCenter: 'us21', consentField: 'subscribe' }, secrets: { apiKey: 'set' } });

    const noConsent = await send(form.id, { json: { email: 'nobody@example.com', name: 'No Body' } });
    const unticked = await send(form.id, { form: { email: 'later@example.com', subscribe: 'off' } });
    const noEmail = await send(form.id, { json: { email: 'not an address', subscribe: true } });
    await send(form.id, { form: { email: 'bot@example.com', subscribe: 'on', _gotcha: 'filled' } });
    const yes = await send(form.id, { form: { email: 'Ada.Lovelace@Example.com', name: 'Ada King Lovelace', subscribe: 'Yes' } });
    await waitFor(() => mailchimp.members(audience).length === 1, 15_000, 'one member');
    await settledAll();

    expect(mailchimp.members(audience)).toEqual([{ email_address: 'Ada.Lovelace@Example.com', status: 'pending', merge_fields: { FNAME: 'Ada', LNAME: 'King Lovelace' } }]);
    // The member's path is MD5 of the lowercase address (the stand-in refuses any other).
    const hash = createHash('md5').update('ada.lovelace@example.com').digest('hex');
    expect(mailchimp.memberRequests(audience).map((r) => [r.method, r.path])).toEqual([['PUT', `/3.0/lists/${audience}/members/${hash}`]]);
    expect(JSON.parse(mailchimp.memberRequests(audience)[0]!.body)).toMatchObject({ status_if_new: 'pending' });

    const attempts = await attemptsOf(integration.id);
    expect(attempts.map((a) => [a.outcome, a.error]).sort()).toEqual([
      ['sent', null],
      ['skipped', 'no consent'],
      ['skipped', 'no consent'],
      ['skipped', 'no valid email address'],
    ]);
    const log = async (submissionId: string) => (await t.services.integrations.listMessagesOfSubmission(account.id, submissionId))[0];
    for (const id of [noConsent, unticked]) expect(await log(id)).toMatchObject({ kind: 'Mailchimp sign-up', state: 'skipped', reason: 'no consent' });
    expect(await log(noEmail)).toMatchObject({ state: 'skipped', reason: 'no valid email address' });
    expect(await log(yes)).toMatchObject({ state: 'sent' });
  });

  it('a repeat sign-up is one member, its name updated and its status kept; a consent field of the owner’s choosing', async () => {
    const { form } = await createOwner(t.services);
    const audience = newAudience();
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: KEY, audience, consentField: 'newsletter' });
    await send(form.id, { json: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', newsletter: 'true' } });
    await waitFor(() => mailchimp.members(audience).length === 1, 15_000, 'the member');
    // The person confirmed meanwhile: a repeat never puts them back to pending.
    mailchimp.members(audience)[0]!.status = 'subscribed';
    await send(form.id, { json: { email: 'GRACE@example.com', name: 'Grace B. Hopper', newsletter: ['0', '1'] } });
    await send(form.id, { json: { email: 'grace@example.com', subscribe: 'on' } });
    await waitFor(async () => (await attemptsOf(integration.id)).length === 3, 15_000, 'three attempts');
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.error]).sort()).toEqual([
      ['sent', null],
      ['sent', null],
      ['skipped', 'no consent'],
    ]);
    expect(mailchimp.members(audience)).toEqual([{ email_address: 'grace@example.com', status: 'subscribed', merge_fields: { FNAME: 'Grace', LNAME: 'B. Hopper' } }]);
  });

  it('429 and 5xx are retried, Retry-After honoured, until Mailchimp takes the member', async () => {
    const { form } = await createOwner(t.services);
    const audience = newAudience();
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: KEY, audience });
    mailchimp.answerNext.push({ status: 429, headers: { 'retry-after': '1' } }, { status: 503 });
    await send(form.id, { json: { email: 'busy@example.com', subscribe: 'on' } });
    await waitFor(() => mailchimp.members(audience).length === 1, 20_000, 'the member at last');
    await settledAll();
    const attempts = await attemptsOf(integration.id);
    expect(attempts.map((a) => [a.outcome, a.status])).toEqual([
      ['retry', 429],
      ['retry', 503],
      ['sent', 200],
    ]);
    expect(Date.parse(attempts[1]!.attemptedAt) - Date.parse(attempts[0]!.attemptedAt)).toBeGreaterThanOrEqual(990);
  });

  it('401, 403 and 404 turn the integration off with the reason', async () => {
    const { form } = await createOwner(t.services);
    const audience = newAudience();
    const disabledKey = 'fedcba9876543210fedcba9876543210-us21';
    newAudience(disabledKey);
    mailchimp.disabledKeys.add(disabledKey);
    const wrongKey = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: 'ffffffffffffffffffffffffffffffff-us21', audience, name: 'wrong key' });
    const disabled = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: disabledKey, audience, name: 'disabled' });
    const unknown = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: KEY, audience: 'nosuchlist', name: 'unknown audience' });
    await send(form.id, { json: { email: 'ada@example.com', subscribe: 'on' } });
    const reasons = async () => Promise.all([wrongKey, disabled, unknown].map(async (i) => (await t.services.integrations.getIntegration(i.id)).disabledReason));
    await waitFor(async () => (await reasons()).every((r) => r !== null), 15_000, 'all three off');
    expect(await reasons()).toEqual([
      expect.stringMatching(/^Mailchimp answered HTTP 401: Your API key may be invalid/),
      expect.stringMatching(/^Mailchimp answered HTTP 403: This account has been disabled/),
      expect.stringMatching(/^Mailchimp answered HTTP 404: The requested resource could not be found/),
    ]);
    expect(mailchimp.members(audience)).toEqual([]);
  });

  it('"Send test" reads the audience and signs no one up; a wrong key is reported', async () => {
    const { form } = await createOwner(t.services);
    const audience = newAudience();
    const good = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: KEY, audience });
    expect(await t.services.integrations.sendTest(good.id)).toEqual({ sent: true, status: 200, error: null });
    expect(mailchimp.members(audience)).toEqual([]);
    const bad = await t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-us21', audience });
    expect(await t.services.integrations.sendTest(bad.id)).toMatchObject({ sent: false, status: 401 });
    // A test's refusal turns nothing off.
    expect((await t.services.integrations.getIntegration(bad.id)).enabled).toBe(true);
  });

  it('checks the settings', async () => {
    const { form } = await createOwner(t.services);
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'mailchimp', apiKey: 'abc', audience: 'no such id!' })).rejects.toMatchObject({
      fieldErrors: { apiKey: expect.stringContaining('…-us21'), audience: expect.stringContaining('audience ID') },
    });
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'mailchimp' })).rejects.toMatchObject({
      fieldErrors: { apiKey: expect.stringContaining('required'), audience: expect.stringContaining('required') },
    });
  });
});
