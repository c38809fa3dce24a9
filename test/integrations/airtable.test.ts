import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { AirtableStandIn } from '../helpers/airtable-stand-in.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

const RETRY_BASE_MS = 400;
const TOKEN = 'patAbCdEfGhIjKlMn.0123456789abcdef0123456789abcdef';
let airtable: AirtableStandIn;
let t: AppUnderTest;
let baseCount = 0;

beforeAll(async () => {
  // Airtable's 30-second penalty, shortened: the sender waits half the retry base when no Retry-After comes.
  airtable = new AirtableStandIn(300);
  await airtable.start();
  t = await buildTestApp({ env: { HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: String(RETRY_BASE_MS), AIRTABLE_API_URL: airtable.server.url } });
});
afterAll(async () => {
  await t?.close();
  await airtable?.server.stop();
});

function newBase(columns = ['email', 'Message', 'company']) {
  const base = `app${String(++baseCount).padStart(14, '0')}`;
  airtable.createTable(base, TOKEN, 'Leads', columns);
  return base;
}

async function send(formId: string, fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

const attemptsOf = async (id: string) => (await t.services.integrations.listAttempts(id, 200, undefined)).reverse();

describe(`Airtable integrations on ${testDialect}`, () => {
  it('one record per submission, fields by name or through the mapping; spam never leaves', async () => {
    const { form } = await createOwner(t.services);
    const base = newBase();
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: TOKEN, base, table: 'Leads', map: ['message=Message'] });
    expect(integration).toMatchObject({ kind: 'airtable', settings: { base, table: 'Leads', map: { message: 'Message' } }, secrets: { token: 'set' }, token: null });
    await send(form.id, { email: 'ada@example.com', message: 'Hello', _gotcha: 'bot' });
    await send(form.id, { email: 'ada@example.com', message: 'Hello' });
    await send(form.id, { email: 'grace@example.com', company: 'Navy' });
    await waitFor(() => airtable.records(base, 'Leads').length === 2, 15_000, 'two records');
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 15_000, 'nothing pending');
    expect(airtable.records(base, 'Leads')).toEqual([
      { email: 'ada@example.com', Message: 'Hello' },
      { email: 'grace@example.com', company: 'Navy' },
    ]);
  });

  it('a column the table lacks is a permanent error that names it; the integration stays on', async () => {
    const { form } = await createOwner(t.services);
    const base = newBase(['email']);
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: TOKEN, base, table: 'Leads' });
    await send(form.id, { email: 'ada@example.com', phone: '+44 20' });
    await waitFor(async () => (await attemptsOf(integration.id)).length === 1, 15_000, 'one attempt');
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.status, a.error])).toEqual([
      ['failed', 422, 'the table “Leads” has no column “phone”: add it in Airtable, or map the field to a column'],
    ]);
    expect((await t.services.integrations.getIntegration(integration.id)).enabled).toBe(true);
  });

  it('a 429 is waited out, then the record is created; 5 requests a second per base are kept to', async () => {
    const { form } = await createOwner(t.services);
    const base = newBase(['n']);
    const one = await t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: TOKEN, base, table: 'Leads', name: 'one' });
    const two = await t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: TOKEN, base, table: 'Leads', name: 'two' });
    // Another client of the base went over the limit: Airtable answers 429 for a while.
    for (let i = 0; i < 6; i++) airtable.hit(base);
    await send(form.id, { n: '0' });
    await waitFor(() => airtable.records(base, 'Leads').length === 2, 15_000, 'the first records');
    // The record lands before its attempt is written down.
    await waitFor(async () => (await attemptsOf(one.id)).at(-1)?.outcome === 'sent', 15_000, 'the sent attempt logged');
    const first = await attemptsOf(one.id);
    expect(first[0]).toMatchObject({ outcome: 'retry', status: 429 });
    expect(first.at(-1)).toMatchObject({ outcome: 'sent', status: 200 });
    // No Retry-After: half the retry base (30 seconds with the default base) before trying again.
    expect(Date.parse(first[1]!.attemptedAt) - Date.parse(first[0]!.attemptedAt)).toBeGreaterThanOrEqual(RETRY_BASE_MS / 2 - 5);

    // 12 submissions to two integrations on one base: 24 requests, never more than 5 in a second.
    const limitedBefore = airtable.tooManyRequests;
    for (let i = 1; i <= 12; i++) await send(form.id, { n: String(i) });
    await waitFor(() => airtable.records(base, 'Leads').length === 26, 30_000, 'every record');
    expect(airtable.tooManyRequests).toBe(limitedBefore);
    for (const integration of [one, two]) {
      await waitFor(async () => (await attemptsOf(integration.id)).filter((a) => a.outcome === 'sent').length >= 13, 15_000, 'every attempt logged');
    }
    for (const integration of [one, two]) expect((await attemptsOf(integration.id)).filter((a) => a.outcome === 'sent')).toHaveLength(13);
  }, 60_000);

  it('a token refused turns the integration off with the reason; "Send test" reports it', async () => {
    const { form } = await createOwner(t.services);
    const base = newBase(['email', 'message']);
    const good = await t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: TOKEN, base, table: 'Leads' });
    expect(await t.services.integrations.sendTest(good.id)).toEqual({ sent: true, status: 200, error: null });
    expect(airtable.records(base, 'Leads')).toEqual([{ email: 'test@example.com', message: 'This is a test message from Formgate.' }]);
    const bad = await t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: 'patWrong.0000', base, table: 'Leads' });
    expect(await t.services.integrations.sendTest(bad.id)).toMatchObject({ sent: false, status: 403 });
    await t.services.integrations.removeIntegration(good.id);
    await send(form.id, { email: 'x@example.com' });
    await waitFor(async () => !(await t.services.integrations.getIntegration(bad.id)).enabled, 15_000, 'the integration disabled');
    expect((await t.services.integrations.getIntegration(bad.id)).disabledReason).toMatch(/^Airtable answered HTTP 403: Invalid permissions/);
  });

  it('checks the settings', async () => {
    const { form } = await createOwner(t.services);
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'airtable', token: '', base: 'nope', table: '', map: ['novalue'] })).rejects.toMatchObject({
      fieldErrors: { token: expect.stringContaining('required'), base: expect.stringContaining('base ID'), table: expect.stringContaining('required'), map: '“novalue” must be field=column' },
    });
  });
});
