import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { ListmonkStandIn } from '../helpers/listmonk-stand-in.js';
import { JSON_ACCEPT, submit, type Body } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

const USER = 'formgate';
const TOKEN = 'AbCdEf0123456789AbCdEf0123456789';
let listmonk: ListmonkStandIn;
let t: AppUnderTest;

beforeAll(async () => {
  listmonk = new ListmonkStandIn();
  await listmonk.start();
  listmonk.addUser(USER, TOKEN);
  listmonk.createList(3, 'Newsletter', 'double');
  listmonk.createList(4, 'Product news', 'single');
  listmonk.createList(5, 'Events', 'double');
  // The owner's own instance, on loopback here: the SSRF rules are lifted as for hook targets.
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '200' }, hookTransport: { ca: listmonk.ca } });
});
afterAll(async () => {
  await t?.close();
  await listmonk?.server.stop();
});

async function send(formId: string, body: Body): Promise<string> {
  const res = await submit(t, formId, body, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

const add = (formId: string, extra: Record<string, string | string[]> = {}) =>
  t.services.integrations.addIntegration(formId, { kind: 'listmonk', url: listmonk.server.url, username: USER, token: TOKEN, lists: ['3', '4'], ...extra });
const attemptsOf = async (id: string) => (await t.services.integrations.listAttempts(id, 100)).reverse();
/** The requests that carried an address (letter case aside), in the body or the query. */
const requestsFor = (email: string) => listmonk.server.requests.filter((r) => `${r.body} ${r.query.get('query') ?? ''}`.toLowerCase().includes(email));

describe(`listmonk integrations on ${testDialect}`, () => {
  it('subscribes only with consent and a valid email, unconfirmed with an opt-in mail; the others never reach listmonk', async () => {
    const { form, account } = await createOwner(t.services);
    const integration = await add(form.id);
    expect(integration).toMatchObject({ kind: 'listmonk', settings: { url: listmonk.server.url, username: USER, lists: [3, 4], consentField: 'subscribe' }, secrets: { token: 'set' } });

    const noConsent = await send(form.id, { json: { email: 'quiet@example.com', name: 'Quiet One' } });
    await send(form.id, { form: { email: 'spam@example.com', subscribe: 'on', _gotcha: 'bot' } });
    await send(form.id, { form: { email: 'ada@example.com', name: 'Ada Lovelace', subscribe: 'ON' } });
    await waitFor(async () => (await attemptsOf(integration.id)).length === 2, 15_000, 'two attempts');

    expect(listmonk.subscriber('ada@example.com')).toEqual({
      id: expect.any(Number),
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      status: 'enabled',
      lists: [
        { id: 3, subscription_status: 'unconfirmed' },
        { id: 4, subscription_status: 'confirmed' },
      ],
    });
    expect(listmonk.optins.filter((e) => e === 'ada@example.com')).toHaveLength(1);
    const create = requestsFor('ada@example.com')[0]!;
    expect(create.headers.authorization).toBe(`token ${USER}:${TOKEN}`);
    expect(JSON.parse(create.body)).toMatchObject({ preconfirm_subscriptions: false, status: 'enabled', lists: [3, 4] });
    expect(requestsFor('quiet@example.com')).toEqual([]);
    expect(requestsFor('spam@example.com')).toEqual([]);
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.error]).sort()).toEqual([
      ['sent', null],
      ['skipped', 'no consent'],
    ]);
    expect((await t.services.integrations.listMessagesOfSubmission(account.id, noConsent))[0]).toMatchObject({ kind: 'listmonk sign-up', state: 'skipped', reason: 'no consent' });
  });

  it('a repeat (409) adds the lists the subscriber lacks: still one subscriber, mailed while unconfirmed', async () => {
    const { form } = await createOwner(t.services);
    const first = await add(form.id, { lists: ['4'] });
    await send(form.id, { json: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', subscribe: true } });
    await waitFor(async () => (await attemptsOf(first.id)).length === 1, 15_000, 'the first sign-up');
    expect(listmonk.subscriber('grace@example.com')!.lists).toEqual([{ id: 4, subscription_status: 'confirmed' }]);
    expect(listmonk.optins).not.toContain('grace@example.com');

    await t.services.integrations.removeIntegration(first.id);
    const second = await add(form.id, { lists: '4\n5' });
    await send(form.id, { json: { email: 'Grace@Example.com', subscribe: 'yes' } });
    await waitFor(async () => (await attemptsOf(second.id)).length === 1, 15_000, 'the repeat');
    expect((await attemptsOf(second.id)).map((a) => [a.outcome, a.status, a.error])).toEqual([['sent', 200, null]]);
    expect(listmonk.subscribers.filter((s) => s.email === 'grace@example.com')).toHaveLength(1);
    expect(listmonk.subscriber('grace@example.com')!.lists).toEqual([
      { id: 4, subscription_status: 'confirmed' },
      { id: 5, subscription_status: 'unconfirmed' },
    ]);
    expect(listmonk.optins.filter((e) => e === 'grace@example.com')).toHaveLength(1);
    const calls = requestsFor('grace@example.com').slice(1).map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual(['POST /api/subscribers', 'GET /api/subscribers']);
    expect(listmonk.server.requests.filter((r) => r.path === '/api/subscribers/lists' && r.body.includes('"target_list_ids":[5]'))).toHaveLength(1);
  });

  it('a token refused (403) or an address without listmonk (404) turns the integration off', async () => {
    const { form } = await createOwner(t.services);
    const wrong = await add(form.id, { token: 'wrong-token', name: 'wrong token' });
    const nowhere = await add(form.id, { url: `${listmonk.server.url}/elsewhere`, name: 'nowhere' });
    await send(form.id, { json: { email: 'ada2@example.com', subscribe: '1' } });
    const reasons = async () => Promise.all([wrong, nowhere].map(async (i) => (await t.services.integrations.getIntegration(i.id)).disabledReason));
    await waitFor(async () => (await reasons()).every((r) => r !== null), 15_000, 'both off');
    expect(await reasons()).toEqual([expect.stringMatching(/^listmonk answered HTTP 403: invalid API credentials/), expect.stringMatching(/^listmonk answered HTTP 404: Unknown route/)]);
    expect(listmonk.subscriber('ada2@example.com')).toBeUndefined();
  });

  it('"Send test" reads each list and subscribes no one; an unknown list is named', async () => {
    const { form } = await createOwner(t.services);
    const before = listmonk.subscribers.length;
    const good = await add(form.id);
    expect(await t.services.integrations.sendTest(good.id)).toEqual({ sent: true, status: 200, error: null });
    const unknown = await add(form.id, { lists: ['3', '99'] });
    expect(await t.services.integrations.sendTest(unknown.id)).toEqual({ sent: false, status: 404, error: 'listmonk has no list 99, or the API user may not see it' });
    expect(listmonk.subscribers.length).toBe(before);
  });

  it('checks the settings: https only, list IDs as numbers', async () => {
    const { form } = await createOwner(t.services);
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'listmonk', url: 'http://lists.example.com', username: '', token: TOKEN, lists: ['three'] })).rejects.toMatchObject({
      fieldErrors: { url: expect.stringContaining('https'), username: expect.stringContaining('required'), lists: 'must be list IDs: whole numbers, as listmonk shows them' },
    });
    const fromAdmin = await add(form.id, { url: `${listmonk.server.url}/admin/subscribers` });
    expect(fromAdmin.settings.url).toBe(listmonk.server.url);
  });
});

describe(`listmonk targets follow the hook rules on ${testDialect}`, () => {
  it('refuses a private address unless HOOK_ALLOW_PRIVATE_TARGETS, when added and when a name resolves to one', async () => {
    // A public-looking name that resolves to the loopback listmonk: refused at connect time.
    const strict = await buildTestApp({ env: { HOOK_TIMEOUT_MS: '3000' }, hookTransport: { ca: listmonk.ca, resolve: async () => [{ address: '127.0.0.1', family: 4 }] } });
    try {
      const { form } = await createOwner(strict.services);
      await expect(strict.services.integrations.addIntegration(form.id, { kind: 'listmonk', url: 'https://192.168.1.20', username: USER, token: TOKEN, lists: ['3'] })).rejects.toMatchObject({
        fieldErrors: { url: expect.stringContaining('public') },
      });
      const rebound = await strict.services.integrations.addIntegration(form.id, { kind: 'listmonk', url: `https://lists.example.com:${listmonk.server.port}`, username: USER, token: TOKEN, lists: ['3'] });
      const before = listmonk.server.requests.length;
      expect(await strict.services.integrations.sendTest(rebound.id)).toEqual({ sent: false, status: null, error: expect.stringMatching(/^refused: /) });
      expect(listmonk.server.requests.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
