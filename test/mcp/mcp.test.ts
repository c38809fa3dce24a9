import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createOwner, insertSubmissions } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { operatorEnv, PROCESS_TEST_TIMEOUT_MS } from '../helpers/server-process.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

type Owner = Awaited<ReturnType<typeof createOwner>>;
type Transport = 'http' | 'stdio';

let receiver: HttpsReceiver;
let t: TestApp;
let owner: Owner;
let stranger: Owner;
let triageKey: string;
let manageKey: string;
let strangerSubmission: string;
const open: Client[] = [];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond((_req, res) => res.writeHead(200).end('ok'));
  t = await startTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
  owner = await createOwner(t.services, { planId: 'business', form: { name: 'Contact' } });
  triageKey = (await t.services.apiKeys.createApiKey(owner.account.id, 'agent', 'triage')).apiKey;
  manageKey = (await t.services.apiKeys.createApiKey(owner.account.id, 'builder', 'manage')).apiKey;
  stranger = await createOwner(t.services);
  strangerSubmission = (await insertSubmissions(t.services, stranger.form.id, [{ createdAt: '2026-05-01T08:00:00.000Z', payload: { name: 'Not yours' } }]))[0]!;
  const at = Date.parse('2026-05-10T09:00:00.000Z');
  await insertSubmissions(
    t.services,
    owner.form.id,
    Array.from({ length: 23 }, (_, i) => ({
      // Three a millisecond: the pages must break ties as the API does.
      createdAt: new Date(at + Math.floor(i / 3) + (i >= 20 ? 86_400_000 : 0)).toISOString(),
      payload: { name: `Person ${i}`, message: i % 5 === 0 ? 'A question about pricing' : 'Hello' },
      isSpam: i % 4 === 0,
    })),
  );
}, 60_000);

afterAll(async () => {
  for (const client of open) await client.close().catch(() => {});
  await t?.close();
  await receiver?.close();
});

async function connect(transport: Transport, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'formgate-test', version: '1.0.0' });
  if (transport === 'http') {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  } else {
    const env = Object.fromEntries(Object.entries({ ...operatorEnv(), DATABASE_URL: t.database.url, FORMGATE_API_KEY: apiKey, LOG_LEVEL: 'warn' }).filter((e): e is [string, string] => e[1] !== undefined));
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['bin/formgate.js', 'mcp'], env, stderr: 'pipe' }));
  }
  open.push(client);
  return client;
}

/** A tool's answer: its structured content, and whether it was an error. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
  if (!result.isError) expect(JSON.parse(text)).toEqual(result.structuredContent);
  return { isError: result.isError === true, body: (result.structuredContent ?? { text }) as Record<string, any> };
}

async function api(path: string, apiKey = owner.apiKey) {
  const res = await fetch(`${t.url}/v1/api${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

describe.each<Transport>(['http', 'stdio'])(`the MCP server over %s (${testDialect})`, (transport) => {
  let reader: Client;
  let triager: Client;
  let manager: Client;

  beforeAll(async () => {
    [reader, triager, manager] = await Promise.all([connect(transport, owner.apiKey), connect(transport, triageKey), connect(transport, manageKey)]);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('lists the read tools for a read key, and the triage tools too for a triage key, each described in one sentence', async () => {
    const readTools = (await reader.listTools()).tools;
    expect(readTools.map((tool) => tool.name).sort()).toEqual(['count_submissions', 'get_account', 'get_submission', 'list_forms', 'list_submissions']);
    const triageTools = (await triager.listTools()).tools;
    expect(triageTools.map((tool) => tool.name).sort()).toEqual(['count_submissions', 'get_account', 'get_submission', 'list_forms', 'list_submissions', 'mark_not_spam', 'mark_spam']);
    for (const tool of triageTools) expect(tool.description, tool.name).toMatch(/^[A-Z][^.]*(\.[^.]+)*\.$/);
  });

  it('answers the account and the forms in the management API shapes', async () => {
    expect(await call(reader, 'get_account')).toEqual({ isError: false, body: await api('/me') });
    expect(await call(reader, 'list_forms')).toEqual({ isError: false, body: await api('/forms') });
  });

  it('pages through submissions with the API cursors, and filters spam', async () => {
    const pages: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    do {
      const { isError, body } = await call(reader, 'list_submissions', { formId: owner.form.id, limit: 10, ...(cursor ? { cursor } : {}) });
      expect(isError).toBe(false);
      expect(body).toEqual(await api(`/forms/${owner.form.id}/submissions?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      pages.push(body);
      cursor = body.nextCursor;
    } while (cursor);
    // 23 stored here (and those the other transport's triage test submitted).
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.slice(0, -1).every((p) => p.submissions.length === 10)).toBe(true);
    const ids = pages.flatMap((p) => p.submissions.map((s: { id: string }) => s.id));
    expect(ids).toEqual((await api(`/forms/${owner.form.id}/submissions?limit=100`)).submissions.map((s: { id: string }) => s.id));
    // The REST list has no spam filter: the tool's is the full list, filtered.
    const all = (await api(`/forms/${owner.form.id}/submissions?limit=100`)).submissions as Array<{ isSpam: number }>;
    for (const spam of [true, false]) {
      const filtered = await call(reader, 'list_submissions', { formId: owner.form.id, spam, limit: 100 });
      expect(filtered.body).toEqual({ submissions: all.filter((s) => s.isSpam === (spam ? 1 : 0)), nextCursor: null });
      expect(filtered.body.submissions.length).toBeGreaterThanOrEqual(spam ? 6 : 17);
      expect(filtered.body.submissions.every((s: { isSpam: number }) => s.isSpam === (spam ? 1 : 0))).toBe(true);
    }
  });

  it('searches words and days, page by page', async () => {
    const first = await call(reader, 'list_submissions', { formId: owner.form.id, query: 'pricing', limit: 3 });
    const second = await call(reader, 'list_submissions', { formId: owner.form.id, query: 'pricing', limit: 3, cursor: first.body.nextCursor });
    const names = [...first.body.submissions, ...second.body.submissions].map((s: { payload: { name: string } }) => s.payload.name);
    expect(names.sort()).toEqual(['Person 0', 'Person 10', 'Person 15', 'Person 20', 'Person 5']);
    expect(second.body.nextCursor).toBeNull();
    const lastDay = await call(reader, 'list_submissions', { formId: owner.form.id, since: '2026-05-11', until: '2026-05-12' });
    expect(lastDay.body.submissions.map((s: { payload: { name: string } }) => s.payload.name).sort()).toEqual(['Person 20', 'Person 21', 'Person 22']);
  });

  it('bounds the list by ISO 8601 instants as the API does, with words too', async () => {
    // Persons 3 to 8 were stored in the milliseconds 1 and 2 after 09:00 on the first day.
    const since = '2026-05-10T09:00:00.001Z';
    const until = '2026-05-10T11:00:00.003+02:00';
    const listed = await call(reader, 'list_submissions', { formId: owner.form.id, since, until, limit: 100 });
    expect(listed.body).toEqual(await api(`/forms/${owner.form.id}/submissions?limit=100&since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`));
    expect(listed.body.submissions.map((s: { payload: { name: string } }) => s.payload.name).sort()).toEqual(['Person 3', 'Person 4', 'Person 5', 'Person 6', 'Person 7', 'Person 8']);
    const searched = await call(reader, 'list_submissions', { formId: owner.form.id, query: 'pricing', since, until });
    expect(searched.body.submissions.map((s: { payload: { name: string } }) => s.payload.name)).toEqual(['Person 5']);
    for (const [args, field] of [[{ since: 'last week' }, 'since'], [{ until: '2026-05-10T09:00:00' }, 'until'], [{ since, until: since }, 'until']] as const) {
      expect(await call(reader, 'list_submissions', { formId: owner.form.id, ...args }), field).toMatchObject({ isError: true, body: { error: 'validation_failed', fieldErrors: { [field]: expect.any(String) } } });
    }
  });

  it('gives a manage key create_form and update_form, which write as the API does', async () => {
    const tools = (await manager.listTools()).tools;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['create_form', 'update_form', 'mark_spam', 'list_forms']));
    for (const tool of tools) expect(tool.description, tool.name).toMatch(/^[A-Z][^.]*(\.[^.]+)*\.$/);
    const key = `agent-form-${transport}`;
    const created = await call(manager, 'create_form', { name: 'Made by an agent', key, settings: { maxLinks: 1 }, recipients: ['agent@example.com'] });
    expect(created.isError).toBe(false);
    const { form } = created.body as { form: { id: string } };
    expect(created.body).toEqual(await api(`/forms/${form.id}`));
    expect(created.body.form).toMatchObject({ key, name: 'Made by an agent', settings: { maxLinks: 1 }, recipients: ['agent@example.com'] });

    const updated = await call(manager, 'update_form', { formId: form.id, isActive: false, settings: { maxLinks: 4 } });
    expect(updated.body.form).toMatchObject({ isActive: 0, settings: { maxLinks: 4 }, name: 'Made by an agent' });
    expect((await t.services.forms.getForm(form.id)).maxLinks).toBe(4);
    expect(await call(manager, 'update_form', { formId: form.id, settings: { maxLinks: -2 } })).toMatchObject({ isError: true, body: { error: 'validation_failed', fieldErrors: { 'settings.maxLinks': expect.any(String) } } });
    expect(await call(manager, 'update_form', { formId: stranger.form.id, name: 'Mine' })).toMatchObject({ isError: true, body: { error: 'not_found' } });
    expect(await call(manager, 'create_form', { name: 'Twin', key })).toMatchObject({ isError: true, body: { error: 'validation_failed', fieldErrors: { key: expect.any(String) } } });

    const keyId = (await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.name === 'builder')!.id;
    const events = (await t.services.audit.listEvents(owner.account.id)).filter((e) => e.target?.id === form.id);
    expect(events.map((e) => [e.action, e.actor.type, e.actor.id])).toEqual(expect.arrayContaining([['form.created', 'api_key', keyId], ['form.updated', 'api_key', keyId]]));
  });

  it('neither lists nor runs create_form and update_form for read and triage keys', async () => {
    const before = (await t.services.forms.listForms(owner.account.id)).length;
    for (const client of [reader, triager]) {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).not.toContain('create_form');
      expect(names).not.toContain('update_form');
      expect((await client.callTool({ name: 'create_form', arguments: { name: 'Sneaky' } })).isError).toBe(true);
      expect((await client.callTool({ name: 'update_form', arguments: { formId: owner.form.id, name: 'Sneaky' } })).isError).toBe(true);
    }
    expect((await t.services.forms.listForms(owner.account.id)).length).toBe(before);
    expect((await t.services.forms.getForm(owner.form.id)).name).toBe('Contact');
  });

  it('answers one submission, and counts per day', async () => {
    const [latest] = (await api(`/forms/${owner.form.id}/submissions?limit=1`)).submissions;
    expect(await call(reader, 'get_submission', { submissionId: latest.id })).toEqual({ isError: false, body: { submission: latest } });
    const counts = await call(reader, 'count_submissions', { formId: owner.form.id, since: '2026-05-09', until: '2026-05-11' });
    expect(counts.body).toEqual({
      formId: owner.form.id,
      since: '2026-05-09',
      until: '2026-05-11',
      total: { inbox: 17, spam: 6 },
      days: [
        { day: '2026-05-09', inbox: 0, spam: 0 },
        { day: '2026-05-10', inbox: 15, spam: 5 },
        { day: '2026-05-11', inbox: 2, spam: 1 },
      ],
    });
  });

  it("answers not_found for another account's IDs, and validation_failed for bad input, as tool errors", async () => {
    for (const [name, args] of [
      ['get_submission', { submissionId: strangerSubmission }],
      ['list_submissions', { formId: stranger.form.id }],
      ['count_submissions', { formId: stranger.form.id }],
      ['get_submission', { submissionId: 'sub_doesnotexist' }],
    ] as const) {
      const result = await call(reader, name, args);
      expect(result, name).toMatchObject({ isError: true, body: { error: 'not_found' } });
    }
    expect(await call(triager, 'mark_spam', { submissionId: strangerSubmission })).toMatchObject({ isError: true, body: { error: 'not_found' } });
    expect((await t.services.submissionQueries.getSubmissionForOperator(strangerSubmission!)).isSpam).toBe(false);
    expect(await call(reader, 'list_submissions', { formId: owner.form.id, limit: 0 })).toMatchObject({ isError: true, body: { error: 'validation_failed', fieldErrors: { limit: expect.any(String) } } });
    expect(await call(reader, 'list_submissions', { formId: owner.form.id, cursor: 'forged' })).toMatchObject({ isError: true, body: { error: 'validation_failed', fieldErrors: { cursor: expect.any(String) } } });
    expect(await call(reader, 'count_submissions', { formId: owner.form.id, since: 'yesterday' })).toMatchObject({ isError: true, body: { error: 'validation_failed', fieldErrors: { since: expect.any(String) } } });
  });

  it('refuses the triage tools to a read key', async () => {
    const [inbox] = (await api(`/forms/${owner.form.id}/submissions?limit=1&spam=false`)).submissions;
    const refused = await reader.callTool({ name: 'mark_spam', arguments: { submissionId: inbox.id } });
    expect(refused.isError).toBe(true);
    expect((await t.services.submissionQueries.getSubmission(owner.account.id, inbox.id)).isSpam).toBe(false);
  });

  it('marks spam, and "not spam" sends the submission on exactly once, as the dashboard does', async () => {
    const hookRes = await fetch(`${t.url}/v1/api/hooks`, {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}/${transport}` }),
    });
    expect(hookRes.status).toBe(201);
    const filed = await submit(t, owner.form.id, { json: { name: `Caught ${transport}`, _honey: 'x' } }, JSON_ACCEPT);
    const { submissionId } = (await filed.json()) as { submissionId: string };
    const delivered = () => receiver.received.filter((r) => r.url === `/${transport}`);

    const marked = await call(triager, 'mark_not_spam', { submissionId });
    expect(marked).toMatchObject({ isError: false, body: { submission: { id: submissionId, isSpam: 0, spamReason: null } } });
    await waitFor(() => delivered().length === 1, 20_000, 'the hook delivery of the submission marked not spam');
    expect(JSON.parse(delivered()[0]!.body)).toMatchObject({ id: submissionId, fields: { name: `Caught ${transport}` } });
    // Again, and spam then not spam: it was sent once, so never again.
    await call(triager, 'mark_not_spam', { submissionId });
    expect(await call(triager, 'mark_spam', { submissionId })).toMatchObject({ body: { submission: { isSpam: 1, spamReason: 'marked' } } });
    await call(triager, 'mark_not_spam', { submissionId });
    await waitFor(async () => (await t.services.outbox.countPending()) === 0, 20_000, 'the outbox to empty');
    expect(delivered()).toHaveLength(1);
  });
});

describe(`POST /v1/mcp without a valid key (${testDialect})`, () => {
  it('is refused like the management API, and answers only POST', async () => {
    const res = await fetch(`${t.url}/v1/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({ error: 'unauthorized' });
    const get = await fetch(`${t.url}/v1/mcp`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
