import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner } from '../helpers/factories.js';
import { NotionStandIn } from '../helpers/notion-stand-in.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'ntn_4821938102aBcDeFgHiJkLmNoPqRsTuVwXyZ0123';
let notion: NotionStandIn;
let t: AppUnderTest;

beforeAll(async () => {
  notion = new NotionStandIn();
  await notion.start();
  t = await buildTestApp({ env: { HOOK_TIMEOUT_MS: '3000', MAIL_RETRY_BASE_MS: '25', NOTION_API_URL: notion.server.url } });
});
afterAll(async () => {
  await t?.close();
  await notion?.server.stop();
});

async function send(formId: string, fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, formId, { json: fields }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

const text = (content: string) => [{ type: 'text', text: { content } }];
const bullet = (content: string) => ({ object: 'block', type: 'bulleted_list_item', bulleted_list_item: { rich_text: text(content) } });

describe(`Notion integrations on ${testDialect}`, () => {
  it('each field goes into its property in the property’s type; the title takes the first text field; the rest is a list', async () => {
    const { form } = await createOwner(t.services);
    const database = notion.createDatabase(TOKEN, { Name: 'title', Email: 'email', Budget: 'number', Plan: 'select', Start: 'date', Tags: 'multi_select', Agreed: 'checkbox' });
    // Given as the database's URL: the ID is taken from it.
    const url = `https://www.notion.so/acme/Leads-${database.replace(/-/g, '')}?v=0123456789abcdef0123456789abcdef`;
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'notion', token: TOKEN, database: url });
    expect(integration).toMatchObject({ kind: 'notion', settings: { database }, secrets: { token: 'set' } });
    await send(form.id, { _gotcha: 'bot', company: 'Spam Inc' });
    await send(form.id, { company: 'Acme', email: 'ada@example.com', budget: '1200.5', plan: 'Pro, yearly', start: '2026-12-24', tags: 'a, b', agreed: 'on', note: 'Call me' });
    await send(form.id, { Budget: 'a lot', message: 'Hi' });
    await waitFor(() => notion.pages(database).length === 2, 15_000, 'two pages');
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 15_000, 'nothing pending');
    const [first, second] = notion.pages(database);
    expect(first!.properties).toEqual({
      Email: { email: 'ada@example.com' },
      Budget: { number: 1200.5 },
      Plan: { select: { name: 'Pro  yearly' } },
      Start: { date: { start: '2026-12-24' } },
      Tags: { multi_select: [{ name: 'a' }, { name: 'b' }] },
      Agreed: { checkbox: true },
      Name: { title: text('Acme') },
    });
    expect(first!.children).toEqual([bullet('note: Call me')]);
    // A value that is no number stays text, in the body.
    expect(second!.properties).toEqual({ Name: { title: text('a lot') } });
    expect(second!.children).toEqual([bullet('message: Hi')]);
    // The schema was read once for both.
    expect(notion.schemaReads).toBe(1);
    expect((await t.services.integrations.listAttempts(integration.id, 10)).map((a) => a.outcome)).toEqual(['sent', 'sent']);
  });

  it('a field named like the title fills it; "Send test" creates a sample page', async () => {
    const { form } = await createOwner(t.services);
    const database = notion.createDatabase(TOKEN, { Subject: 'title', email: 'email', message: 'rich_text' });
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'notion', token: TOKEN, database });
    expect(await t.services.integrations.sendTest(integration.id)).toEqual({ sent: true, status: 200, error: null });
    expect(notion.pages(database)[0]!.properties).toEqual({ email: { email: 'test@example.com' }, message: { rich_text: text('This is a test message from Formgate.') }, Subject: { title: text('Submission test') } });
    await send(form.id, { subject: 'Quote', email: 'ada@example.com' });
    await waitFor(() => notion.pages(database).length === 2, 15_000, 'the page');
    expect(notion.pages(database)[1]!.properties).toEqual({ Subject: { title: text('Quote') }, email: { email: 'ada@example.com' } });
  });

  it('a database not shared with the integration turns it off with Notion’s reason', async () => {
    const { form } = await createOwner(t.services);
    const database = notion.createDatabase('ntn_someone_else', { Name: 'title' });
    const integration = await t.services.integrations.addIntegration(form.id, { kind: 'notion', token: TOKEN, database });
    await send(form.id, { message: 'hello' });
    await waitFor(async () => !(await t.services.integrations.getIntegration(integration.id)).enabled, 15_000, 'the integration disabled');
    expect((await t.services.integrations.getIntegration(integration.id)).disabledReason).toMatch(/^Notion answered HTTP 404: Could not find database/);
    await expect(t.services.integrations.addIntegration(form.id, { kind: 'notion', token: 'a b', database: 'nope' })).rejects.toMatchObject({
      fieldErrors: { token: expect.any(String), database: expect.stringContaining('32 hexadecimal digits') },
    });
  });
});
