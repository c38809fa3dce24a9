import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { GoogleStandIn } from '../helpers/google-stand-in.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let google: GoogleStandIn;
let t: AppUnderTest;
let sheetCount = 0;

beforeAll(async () => {
  google = new GoogleStandIn();
  await google.start();
  t = await buildTestApp({
    env: { HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '25', GOOGLE_SHEETS_API_URL: google.server.url, GOOGLE_TOKEN_URL: google.tokenUrl },
  });
});
afterAll(async () => {
  await t?.close();
  await google?.server.stop();
});

/** A form with a Sheets integration on a new spreadsheet shared with a new service account. */
async function sheetsForm(options: { share?: boolean } = {}) {
  const { form } = await createOwner(t.services);
  const account = google.serviceAccount(`formgate-${++sheetCount}`);
  const spreadsheet = `1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74Og${String(sheetCount).padStart(4, '0')}`;
  google.createSpreadsheet(spreadsheet, options.share === false ? [] : [account.client_email], ['Leads']);
  const integration = await t.services.integrations.addIntegration(form.id, { kind: 'sheets', key: account.key, spreadsheet, sheet: 'Leads' });
  return { form, integration, spreadsheet, account };
}

async function send(formId: string, fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

const attemptsOf = async (id: string) => (await t.services.integrations.listAttempts(id, 200, undefined)).reverse();

describe(`Google Sheets integrations on ${testDialect}`, () => {
  it('the first submission writes the header row; a new field gets a new column; values stay text', async () => {
    const { form, integration, spreadsheet } = await sheetsForm();
    expect(integration).toMatchObject({ kind: 'sheets', name: 'Google Sheets', settings: { spreadsheet, sheet: 'Leads' }, secrets: { key: 'set' }, url: null, token: null });
    const tokensBefore = google.tokenRequests;
    const first = await send(form.id, { email: 'ada@example.com', message: '=HYPERLINK("https://evil.example","click")' });
    await waitFor(() => google.rows(spreadsheet, 'Leads').length === 2, 15_000, 'the header and the first row');
    const second = await send(form.id, { email: 'grace@example.com', company: 'Navy' });
    await waitFor(() => google.rows(spreadsheet, 'Leads').length === 3, 15_000, 'the second row');
    // The row lands before its attempt is logged.
    await waitFor(async () => (await attemptsOf(integration.id)).length === 2, 15_000, 'both attempts logged');

    const rows = google.rows(spreadsheet, 'Leads');
    const stored = await t.handle.db.selectFrom('submissions').select(['id', 'created_at']).where('form_id', '=', form.id).orderBy('created_at').execute();
    expect(rows[0]).toEqual(['submittedAt', 'submissionId', 'email', 'message', 'company']);
    expect(rows[1]).toEqual([stored[0]!.created_at, first, 'ada@example.com', '=HYPERLINK("https://evil.example","click")']);
    expect(rows[2]).toEqual([stored[1]!.created_at, second, 'grace@example.com', '', 'Navy']);
    // One token for both, reused until it expires.
    expect(google.tokenRequests - tokensBefore).toBe(1);
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.status])).toEqual([
      ['sent', 200],
      ['sent', 200],
    ]);
  });

  it('50 submissions land as 50 rows in order, none twice, though the service restarts after a write mid-way', async () => {
    const { form, integration, spreadsheet } = await sheetsForm();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      if (i === 20) google.restartAfterNextAppend();
      ids.push(await send(form.id, { n: String(i), email: `p${i}@example.com` }));
    }
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 60_000, 'every row sent');
    const rows = google.rows(spreadsheet, 'Leads');
    expect(rows[0]).toEqual(['submittedAt', 'submissionId', 'n', 'email']);
    expect(rows.slice(1).map((r) => r[1])).toEqual(ids);
    expect(rows.slice(1).map((r) => r[2])).toEqual(ids.map((_, i) => String(i)));
    const attempts = await attemptsOf(integration.id);
    // The lost answer was retried; the retry found the row there and wrote nothing.
    expect(attempts.filter((a) => a.outcome === 'retry')).toHaveLength(1);
    expect(attempts.filter((a) => a.outcome === 'sent')).toHaveLength(50);
  }, 90_000);

  it(`two instances on one ${testDialect} database write the rows one at a time, in order`, async () => {
    const b = await buildTestApp({ database: t.database, env: { HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '25', GOOGLE_SHEETS_API_URL: google.server.url, GOOGLE_TOKEN_URL: google.tokenUrl } });
    try {
      const { form, spreadsheet } = await sheetsForm();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await submit(i % 2 ? b : t, form.id, { json: { n: String(i) } }, JSON_ACCEPT);
        ids.push(((await res.json()) as { submissionId: string }).submissionId);
      }
      await waitFor(() => google.rows(spreadsheet, 'Leads').length === 31, 60_000, 'every row');
      await Promise.all([t.services.outbox.settle(), b.services.outbox.settle()]);
      const rows = google.rows(spreadsheet, 'Leads');
      expect(rows[0]).toEqual(['submittedAt', 'submissionId', 'n']);
      const written = rows.slice(1).map((r) => [r[0]!, r[1]!] as const);
      expect([...written.map(([, id]) => id)].sort()).toEqual([...ids].sort());
      // In the order the submissions were stored: by time, then (two in one millisecond) by ID, as the database compares them.
      const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      expect(written).toEqual([...written].sort((x, y) => byCode(x[0], y[0]) || byCode(x[1], y[1])));
    } finally {
      await b.close();
    }
  }, 90_000);

  it('spam never reaches the sheet', async () => {
    const { form, spreadsheet } = await sheetsForm();
    await send(form.id, { message: 'buy now', _gotcha: 'bot' });
    const ham = await send(form.id, { message: 'real' });
    await waitFor(() => google.rows(spreadsheet, 'Leads').length === 2, 15_000, 'the real one');
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 15_000, 'nothing pending');
    expect(google.rows(spreadsheet, 'Leads').slice(1).map((r) => r[1])).toEqual([ham]);
  });

  it('a spreadsheet not shared with the account turns the integration off with the reason', async () => {
    const { form, integration } = await sheetsForm({ share: false });
    await send(form.id, { message: 'hello' });
    await waitFor(async () => !(await t.services.integrations.getIntegration(integration.id)).enabled, 15_000, 'the integration disabled');
    const disabled = await t.services.integrations.getIntegration(integration.id);
    expect(disabled.disabledReason).toMatch(/Google Sheets answered HTTP 403: The caller does not have permission/);
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.status])).toEqual([['disabled', 403]]);
  });

  it('"Send test" writes a sample row; a missing sheet is reported', async () => {
    const { integration, spreadsheet } = await sheetsForm();
    expect(await t.services.integrations.sendTest(integration.id)).toEqual({ sent: true, status: 200, error: null });
    expect(google.rows(spreadsheet, 'Leads')[1]).toEqual([expect.any(String), 'test', 'test@example.com', 'This is a test message from Formgate.']);
    google.spreadsheets.get(spreadsheet)!.sheets.delete('Leads');
    expect(await t.services.integrations.sendTest(integration.id)).toMatchObject({ sent: false, error: 'the spreadsheet has no sheet named “Leads”' });
    expect((await t.services.integrations.getIntegration(integration.id)).enabled).toBe(true);
  });

  it('a token endpoint that fails is retried by the outbox, one request an attempt; a deleted key turns the integration off', async () => {
    const { form, integration, spreadsheet } = await sheetsForm();
    const before = google.tokenRequests;
    google.failTokenRequests(503, 503);
    await send(form.id, { email: 'ada@example.com' });
    await waitFor(async () => (await attemptsOf(integration.id)).length === 3, 15_000, 'the row after two failed sign-ins');
    expect((await attemptsOf(integration.id)).map((a) => [a.outcome, a.status])).toEqual([
      ['retry', 503],
      ['retry', 503],
      ['sent', 200],
    ]);
    // The library's own retries are off: each attempt asked once.
    expect(google.tokenRequests - before).toBe(3);
    expect(google.rows(spreadsheet, 'Leads')).toHaveLength(2);

    const deleted = await sheetsForm();
    google.deleteKey(deleted.account.client_email);
    await send(deleted.form.id, { email: 'ada@example.com' });
    await waitFor(async () => !(await t.services.integrations.getIntegration(deleted.integration.id)).enabled, 15_000, 'the integration disabled');
    expect((await t.services.integrations.getIntegration(deleted.integration.id)).disabledReason).toBe('Google refused the service account key (HTTP 400: Invalid JWT Signature.)');
    expect((await attemptsOf(deleted.integration.id)).map((a) => [a.outcome, a.status])).toEqual([['disabled', 400]]);
    expect(google.rows(deleted.spreadsheet, 'Leads')).toEqual([]);
  });

  it('refuses a key that is not a service-account key, or that names a token endpoint other than Google’s', async () => {
    const { form } = await createOwner(t.services);
    const account = google.serviceAccount('formgate-elsewhere');
    const spreadsheet = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';
    // GOOGLE_TOKEN_URL only says where Formgate's request goes: a key naming it was edited too.
    for (const tokenUri of ['https://attacker.example/token', google.tokenUrl]) {
      const elsewhere = JSON.stringify({ ...JSON.parse(account.key), token_uri: tokenUri });
      await expect(t.services.integrations.addIntegration(form.id, { kind: 'sheets', key: elsewhere, spreadsheet })).rejects.toMatchObject({
        fieldErrors: { key: 'its token_uri must be https://oauth2.googleapis.com/token' },
      });
    }
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'sheets', key: '{"client_email":"a@b.c"}', spreadsheet: 'x' })).rejects.toMatchObject({
      fieldErrors: { key: 'has no usable private_key', spreadsheet: expect.stringContaining('spreadsheet ID') },
    });
    const byUrl = await t.services.integrations.addIntegration(form.id, { kind: 'sheets', key: account.key, spreadsheet: `https://docs.google.com/spreadsheets/d/${spreadsheet}/edit#gid=0` });
    expect(byUrl.settings).toEqual({ spreadsheet, sheet: 'Sheet1', serviceAccount: account.client_email });
  });
});
