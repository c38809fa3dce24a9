import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;
let intruder: Awaited<ReturnType<typeof createOwner>>;
/** Bearer headers of the owner's keys, one per scope. */
const keys: Record<'read' | 'triage' | 'manage', Record<string, string>> = { read: {}, triage: {}, manage: {} };
let intruderManage: Record<string, string>;
const routes: RouteOptions[] = [];

interface FormBody {
  form: { id: string; key: string | null; name: string; isActive: 0 | 1; updatedAt: string; settings: Record<string, unknown>; recipients: string[] };
}
interface IntegrationBody {
  integration: { id: string; formId: string; kind: string; name: string; enabled: boolean; url: 'set' | null };
}

async function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
  return t.fetch(path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

beforeAll(async () => {
  t = await buildTestApp({ onRoute: (route) => routes.push(route) });
  owner = await createOwner(t.services, { planId: 'business' });
  intruder = await createOwner(t.services, { planId: 'business' });
  for (const scope of ['read', 'triage', 'manage'] as const) {
    keys[scope] = { authorization: `Bearer ${(await t.services.apiKeys.createApiKey(owner.account.id, scope, scope)).apiKey}` };
  }
  intruderManage = { authorization: `Bearer ${(await t.services.apiKeys.createApiKey(intruder.account.id, 'manage', 'manage')).apiKey}` };
});
afterAll(async () => t?.close());

describe('forms through the write API', () => {
  it('creates a form with a key, settings and recipients, and reads it back with the same ETag', async () => {
    const res = await send('POST', '/v1/api/forms', keys.manage, {
      name: 'Newsletter',
      key: 'newsletter',
      settings: { maxLinks: 2, allowedOrigins: ['shop.example'], accessKey: 'sekrit-value', notifyMode: 'daily' },
      recipients: ['Team@Example.com'],
    });
    expect(res.status).toBe(201);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const { form } = await json<FormBody>(res);
    expect(form).toMatchObject({ key: 'newsletter', name: 'Newsletter', isActive: 1, recipients: ['team@example.com'] });
    expect(form.settings).toMatchObject({ maxLinks: 2, allowedOrigins: ['shop.example'], accessKey: 'set', notifyMode: 'daily' });
    expect(JSON.stringify(form)).not.toContain('sekrit-value');
    const stored = await t.services.forms.getForm(form.id);
    expect([stored.accountId, stored.accessKey, stored.key]).toEqual([owner.account.id, 'sekrit-value', 'newsletter']);

    const read = await send('GET', `/v1/api/forms/${form.id}`, keys.read);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(etag);
    expect((await json<FormBody>(read)).form).toEqual(form);

    // What was read can be written back as it is: every setting, secrets as "set".
    const back = await send('PATCH', `/v1/api/forms/${form.id}`, { ...keys.manage, 'if-match': etag! }, { name: form.name, key: form.key, isActive: form.isActive, settings: form.settings, recipients: form.recipients });
    expect(back.status).toBe(200);
    expect({ ...(await json<FormBody>(back)).form, updatedAt: form.updatedAt }).toEqual(form);
    expect((await t.services.forms.getForm(form.id)).accessKey).toBe('sekrit-value');
  });

  it('refuses bad input naming the field: a setting, an unknown setting, a taken key, a recipient, a missing name', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'A', settings: { maxLinks: -1 } }, 'settings.maxLinks'],
      [{ name: 'A', settings: { colour: 'red' } }, 'settings.colour'],
      [{ name: 'A', key: 'has space' }, 'key'],
      [{ name: 'A', recipients: ['not-an-address'] }, 'recipients'],
      [{ settings: {} }, 'name'],
      [{ name: 'A', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await send('POST', '/v1/api/forms', keys.manage, body);
      expect(res.status, field).toBe(400);
      const answer = await json<{ error: string; fieldErrors: Record<string, string> }>(res);
      expect(answer.error).toBe('validation_failed');
      expect(Object.keys(answer.fieldErrors), field).toContain(field);
    }
    await createForm(t.services, owner.account.id, { name: 'Keyed' }).then((f) => t.services.forms.updateForm(f.id, { key: 'taken' }));
    const taken = await send('POST', '/v1/api/forms', keys.manage, { name: 'Again', key: 'taken' });
    expect(taken.status).toBe(400);
    expect((await json<{ fieldErrors: Record<string, string> }>(taken)).fieldErrors.key).toMatch(/another form/);
    // Another account may use the same key.
    expect((await send('POST', '/v1/api/forms', intruderManage, { name: 'Theirs', key: 'taken' })).status).toBe(201);
  });

  it('changes a form under If-Match; a stale ETag is 412 and changes nothing', async () => {
    const created = await send('POST', '/v1/api/forms', keys.manage, { name: 'Patchable' });
    const { form } = await json<FormBody>(created);
    const first = created.headers.get('etag')!;

    const patched = await send('PATCH', `/v1/api/forms/${form.id}`, { ...keys.manage, 'if-match': first }, { name: 'Patched', isActive: false, key: 'patched', settings: { retentionDays: 30 }, recipients: ['ops@example.com'] });
    expect(patched.status).toBe(200);
    const second = patched.headers.get('etag')!;
    expect(second).not.toBe(first);
    expect((await json<FormBody>(patched)).form).toMatchObject({ name: 'Patched', isActive: 0, key: 'patched', recipients: ['ops@example.com'], settings: { retentionDays: 30 } });

    const stale = await send('PATCH', `/v1/api/forms/${form.id}`, { ...keys.manage, 'if-match': first }, { name: 'Lost update' });
    expect(stale.status).toBe(412);
    expect(await json(stale)).toEqual({ error: 'precondition_failed', message: expect.any(String) });
    expect((await t.services.forms.getForm(form.id)).name).toBe('Patched');

    // A secret changed elsewhere shows as "set" both times, and still moves the ETag.
    await t.services.forms.updateForm(form.id, { accessKey: 'one' });
    const before = (await send('GET', `/v1/api/forms/${form.id}`, keys.read)).headers.get('etag');
    await t.services.forms.updateForm(form.id, { accessKey: 'two' });
    const after = (await send('GET', `/v1/api/forms/${form.id}`, keys.read)).headers.get('etag');
    expect(after).not.toBe(before);
    // A recipient added on the dashboard moves it too.
    await t.services.notifications.setRecipients(form.id, ['ops@example.com', 'more@example.com'], { verified: true });
    expect((await send('GET', `/v1/api/forms/${form.id}`, keys.read)).headers.get('etag')).not.toBe(after);

    // "set", as read, keeps the secret; a validation error names the setting.
    const kept = await send('PATCH', `/v1/api/forms/${form.id}`, keys.manage, { settings: { accessKey: 'set' } });
    expect(kept.status).toBe(200);
    expect((await t.services.forms.getForm(form.id)).accessKey).toBe('two');
    const bad = await send('PATCH', `/v1/api/forms/${form.id}`, keys.manage, { settings: { language: 'xx' } });
    expect(bad.status).toBe(400);
    expect(Object.keys((await json<{ fieldErrors: object }>(bad)).fieldErrors)).toEqual(['settings.language']);
  });

  it('deletes a form under If-Match: a stale ETag is 412, then 204, then 404', async () => {
    const created = await send('POST', '/v1/api/forms', keys.manage, { name: 'Doomed' });
    const { form } = await json<FormBody>(created);
    const etag = created.headers.get('etag')!;
    await send('PATCH', `/v1/api/forms/${form.id}`, keys.manage, { name: 'Doomed, renamed' });
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, { ...keys.manage, 'if-match': etag })).status).toBe(412);
    const current = (await send('GET', `/v1/api/forms/${form.id}`, keys.read)).headers.get('etag')!;
    const res = await send('DELETE', `/v1/api/forms/${form.id}`, { ...keys.manage, 'if-match': current });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await t.services.forms.findForm(form.id)).toBeUndefined();
    expect((await send('GET', `/v1/api/forms/${form.id}`, keys.read)).status).toBe(404);
  });

  it("answers 404 for another account's form, as for a missing one", async () => {
    const path = `/v1/api/forms/${owner.form.id}`;
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'Mine now' }], ['DELETE', undefined]] as const) {
      const res = await send(method, path, intruderManage, body);
      expect(res.status, method).toBe(404);
      expect((await json<{ error: string }>(res)).error).toBe('not_found');
    }
    expect((await t.services.forms.getForm(owner.form.id)).name).toBe(owner.form.name);
  });

  it('replays the first answer to a repeat with the same Idempotency-Key, creating one form; another body is 409', async () => {
    const countBefore = (await t.services.forms.listForms(owner.account.id)).length;
    const headers = { ...keys.manage, 'idempotency-key': 'create-once-1' };
    const first = await send('POST', '/v1/api/forms', headers, { name: 'Once' });
    const again = await send('POST', '/v1/api/forms', headers, { name: 'Once' });
    expect([first.status, again.status]).toEqual([201, 201]);
    const firstBody = await first.text();
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await t.services.forms.listForms(owner.account.id)).length).toBe(countBefore + 1);

    const other = await send('POST', '/v1/api/forms', headers, { name: 'Twice' });
    expect(other.status).toBe(409);
    expect((await json<{ error: string }>(other)).error).toBe('idempotency_conflict');

    // Concurrent repeats: still one form.
    const burst = await Promise.all(Array.from({ length: 4 }, () => send('POST', '/v1/api/forms', { ...keys.manage, 'idempotency-key': 'burst-1' }, { name: 'Burst' })));
    expect(burst.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const ids = new Set(await Promise.all(burst.map(async (r) => (await json<FormBody>(r)).form.id)));
    expect(ids.size).toBe(1);
    expect((await t.services.forms.listForms(owner.account.id)).filter((f) => f.name === 'Burst')).toHaveLength(1);

    // A replayed PATCH and DELETE change nothing more; an error is not kept.
    const { form } = await json<FormBody>(await send('POST', '/v1/api/forms', keys.manage, { name: 'Idem' }));
    const patchHeaders = { ...keys.manage, 'idempotency-key': 'patch-1' };
    expect((await send('PATCH', `/v1/api/forms/${form.id}`, patchHeaders, { settings: { maxLinks: 5000 } })).status).toBe(400);
    const ok = await send('PATCH', `/v1/api/forms/${form.id}`, patchHeaders, { settings: { maxLinks: 5 } });
    expect(ok.status).toBe(200);
    const revision = (await t.services.forms.getForm(form.id)).revision;
    expect((await send('PATCH', `/v1/api/forms/${form.id}`, patchHeaders, { settings: { maxLinks: 5 } })).status).toBe(200);
    expect((await t.services.forms.getForm(form.id)).revision).toBe(revision);
    const deleteHeaders = { ...keys.manage, 'idempotency-key': 'delete-1' };
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, deleteHeaders)).status).toBe(204);
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, deleteHeaders)).status).toBe(204);
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, keys.manage)).status).toBe(404);
  });

  it('takes over a key whose first request was cut off or whose answer expired, and purges expired ones', async () => {
    const keyId = (await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.name === 'manage')!.id;
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const record = { api_key_id: keyId, request_hash: 'another request', status_code: 201, response: JSON.stringify({ body: { form: null }, headers: {} }) };
    await t.handle.db
      .insertInto('api_idempotency_keys')
      .values([
        // Left pending by a process that stopped ten minutes ago.
        { ...record, idempotency_key: 'cut-off', state: 'pending', status_code: null, response: null, created_at: ago(10 * 60_000) },
        // Answered 25 hours ago, for another request.
        { ...record, idempotency_key: 'expired', state: 'done', created_at: ago(25 * 3_600_000) },
        { ...record, idempotency_key: 'old', state: 'done', created_at: ago(26 * 3_600_000) },
      ])
      .execute();
    for (const key of ['cut-off', 'expired']) {
      const res = await send('POST', '/v1/api/forms', { ...keys.manage, 'idempotency-key': key }, { name: `Taken over ${key}` });
      expect(res.status, key).toBe(201);
      expect((await json<FormBody>(res)).form.name).toBe(`Taken over ${key}`);
    }
    expect(await t.services.apiIdempotency.purgeExpired()).toBe(1);
    const left = await t.handle.db.selectFrom('api_idempotency_keys').select('idempotency_key').where('idempotency_key', 'in', ['cut-off', 'expired', 'old']).execute();
    expect(left.map((r) => r.idempotency_key).sort()).toEqual(['cut-off', 'expired']);
  });

  it('lets exactly one of several PATCHes holding the same ETag through', async () => {
    const created = await send('POST', '/v1/api/forms', keys.manage, { name: 'Raced' });
    const { form } = await json<FormBody>(created);
    const etag = created.headers.get('etag')!;
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((n) => send('PATCH', `/v1/api/forms/${form.id}`, { ...keys.manage, 'if-match': etag }, { name: `Raced ${n}` })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412]);
    const winner = answers.find((r) => r.status === 200)!;
    expect((await t.services.forms.getForm(form.id)).name).toBe((await json<FormBody>(winner)).form.name);
  });

  it('records writes in the audit log with the key as the actor', async () => {
    const { form } = await json<FormBody>(await send('POST', '/v1/api/forms', keys.manage, { name: 'Audited' }));
    await send('PATCH', `/v1/api/forms/${form.id}`, keys.manage, { settings: { maxLinks: 3 } });
    const manageKey = (await t.services.apiKeys.listApiKeys(owner.account.id)).find((k) => k.name === 'manage')!;
    const events = (await t.services.audit.listEvents(owner.account.id)).filter((e) => e.target?.id === form.id);
    expect(events.map((e) => [e.action, e.actor.type, e.actor.id])).toEqual(
      expect.arrayContaining([
        ['form.created', 'api_key', manageKey.id],
        ['form.updated', 'api_key', manageKey.id],
      ]),
    );
  });
});

describe('integrations through the write API', () => {
  const slack = { kind: 'slack', name: 'Team chat', url: 'https://hooks.slack.com/services/T000/B000/XXXX' };

  it('adds, reads, changes and removes an integration; secrets are never shown', async () => {
    const base = `/v1/api/forms/${owner.form.id}/integrations`;
    const added = await send('POST', base, keys.manage, slack);
    expect(added.status).toBe(201);
    const { integration } = await json<IntegrationBody>(added);
    expect(integration).toMatchObject({ formId: owner.form.id, kind: 'slack', name: 'Team chat', enabled: true, url: 'set' });
    expect(JSON.stringify(integration)).not.toContain('XXXX');
    const etag = added.headers.get('etag')!;

    const listed = await json<{ integrations: Array<{ id: string }> }>(await send('GET', base, keys.read));
    expect(listed.integrations.map((i) => i.id)).toContain(integration.id);
    const read = await send('GET', `${base}/${integration.id}`, keys.read);
    expect(read.headers.get('etag')).toBe(etag);

    const changed = await send('PATCH', `${base}/${integration.id}`, { ...keys.manage, 'if-match': etag }, { name: 'Renamed', enabled: false, url: 'https://hooks.slack.com/services/T000/B000/YYYY' });
    expect(changed.status).toBe(200);
    expect((await json<IntegrationBody>(changed)).integration).toMatchObject({ name: 'Renamed', enabled: false, url: 'set' });
    expect(changed.headers.get('etag')).not.toBe(etag);
    const stale = await send('PATCH', `${base}/${integration.id}`, { ...keys.manage, 'if-match': etag }, { name: 'Lost' });
    expect(stale.status).toBe(412);

    // A new secret alone moves the ETag, though the resource shows "set" before and after.
    const beforeSecret = changed.headers.get('etag')!;
    const secret = await send('PATCH', `${base}/${integration.id}`, { ...keys.manage, 'if-match': beforeSecret }, { url: 'https://hooks.slack.com/services/T000/B000/ZZZZ' });
    expect(secret.status).toBe(200);
    expect(secret.headers.get('etag')).not.toBe(beforeSecret);

    const bad = await send('PATCH', `${base}/${integration.id}`, keys.manage, { url: 'http://hooks.slack.com/x' });
    expect(bad.status).toBe(400);
    expect(Object.keys((await json<{ fieldErrors: object }>(bad)).fieldErrors)).toEqual(['url']);

    expect((await send('DELETE', `${base}/${integration.id}`, { ...keys.manage, 'if-match': etag })).status).toBe(412);
    expect((await send('DELETE', `${base}/${integration.id}`, { ...keys.manage, 'if-match': secret.headers.get('etag')! })).status).toBe(204);
    expect((await send('GET', `${base}/${integration.id}`, keys.read)).status).toBe(404);
  });

  it('refuses bad input naming the field, through the same checks as the dashboard', async () => {
    const base = `/v1/api/forms/${owner.form.id}/integrations`;
    for (const [body, field] of [
      [{ kind: 'pager' }, 'kind'],
      [{ kind: 'slack', url: 'https://127.0.0.1/hook' }, 'url'],
      [{ kind: 'telegram', token: 'nope', chatId: '42' }, 'token'],
      [{ name: 'no kind' }, 'kind'],
    ] as const) {
      const res = await send('POST', base, keys.manage, body);
      expect(res.status, field).toBe(400);
      expect(Object.keys((await json<{ fieldErrors: object }>(res)).fieldErrors), field).toContain(field);
    }
  });

  it("answers 404 for another account's integration, and for one reached through another form", async () => {
    const { integration } = await json<IntegrationBody>(await send('POST', `/v1/api/forms/${owner.form.id}/integrations`, keys.manage, slack));
    const path = `/v1/api/forms/${owner.form.id}/integrations/${integration.id}`;
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await send(method, path, intruderManage, method === 'PATCH' ? { name: 'x' } : undefined);
      expect(res.status, method).toBe(404);
    }
    expect((await send('POST', `/v1/api/forms/${owner.form.id}/integrations`, intruderManage, slack)).status).toBe(404);
    const otherForm = await createForm(t.services, owner.account.id, { name: 'Other' });
    expect((await send('PATCH', `/v1/api/forms/${otherForm.id}/integrations/${integration.id}`, keys.manage, { name: 'x' })).status).toBe(404);
    expect((await t.services.integrations.getIntegration(integration.id)).name).toBe('Team chat');
  });

  it('replays an integration added with an Idempotency-Key instead of adding it twice', async () => {
    const form = await createForm(t.services, owner.account.id, { name: 'Idempotent integrations' });
    const headers = { ...keys.manage, 'idempotency-key': 'int-1' };
    const first = await send('POST', `/v1/api/forms/${form.id}/integrations`, headers, slack);
    const again = await send('POST', `/v1/api/forms/${form.id}/integrations`, headers, slack);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(await again.text()).toBe(await first.text());
    expect(await t.services.integrations.listIntegrations(form.id)).toHaveLength(1);
  });
});

describe('integrations under retries and races', () => {
  it('replays a PATCH and a DELETE of an integration, and lets one of several PATCHes holding one ETag through', async () => {
    const form = await createForm(t.services, owner.account.id, { name: 'Raced integrations' });
    const base = `/v1/api/forms/${form.id}/integrations`;
    const added = await send('POST', base, keys.manage, { kind: 'discord', url: 'https://discord.com/api/webhooks/1/abc' });
    const { integration } = await json<IntegrationBody>(added);
    const etag = added.headers.get('etag')!;
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => send('PATCH', `${base}/${integration.id}`, { ...keys.manage, 'if-match': etag }, { name: `Raced ${n}` })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);

    const patch = { ...keys.manage, 'idempotency-key': 'int-patch-1' };
    const first = await send('PATCH', `${base}/${integration.id}`, patch, { enabled: false });
    const revision = (await t.services.integrations.getIntegration(integration.id)).revision;
    const again = await send('PATCH', `${base}/${integration.id}`, patch, { enabled: false });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await again.text()).toBe(await first.text());
    expect((await t.services.integrations.getIntegration(integration.id)).revision).toBe(revision);

    const remove = { ...keys.manage, 'idempotency-key': 'int-delete-1' };
    expect((await send('DELETE', `${base}/${integration.id}`, remove)).status).toBe(204);
    expect((await send('DELETE', `${base}/${integration.id}`, remove)).status).toBe(204);
    expect((await send('DELETE', `${base}/${integration.id}`, keys.manage)).status).toBe(404);
    expect(await t.services.integrations.listIntegrations(form.id)).toHaveLength(0);
  });
});

describe('hooks, as the specification has them', () => {
  it('take an Idempotency-Key too: a repeat gets the same hook and secret, and subscribes nothing more', async () => {
    const form = await createForm(t.services, owner.account.id, { name: 'Hooked' });
    const headers = { ...keys.read, 'idempotency-key': 'hook-1' };
    const body = { formId: form.id, targetUrl: 'https://hooks.example.com/once' };
    const first = await send('POST', '/v1/api/hooks', headers, body);
    const again = await send('POST', '/v1/api/hooks', headers, body);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(await again.text()).toBe(await first.text());
    expect((await t.services.hooks.listHooks(owner.account.id)).filter((h) => h.formId === form.id)).toHaveLength(1);
  });
});

describe('who may write', () => {
  /** Writes the specification gives every key: REST hooks. */
  const SPECIFICATION_WRITES = new Set(['POST /v1/api/hooks', 'DELETE /v1/api/hooks/:id', 'POST /v1/api/hooks/:id/redeliver']);

  it('refuses every write under /v1/api to read and triage keys with 403, whatever the body', async () => {
    const writes = routes
      .flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]).map((m) => ({ method: m, url: r.url })))
      .filter((r) => r.url.startsWith('/v1/api/') && !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
      .filter((r) => !SPECIFICATION_WRITES.has(`${r.method} ${r.url}`));
    // The writes of this API, at least: a route missing here would go unchecked.
    expect(writes.map((w) => `${w.method} ${w.url}`)).toEqual(
      expect.arrayContaining(['POST /v1/api/forms', 'PATCH /v1/api/forms/:id', 'DELETE /v1/api/forms/:id', 'POST /v1/api/forms/:id/integrations', 'PATCH /v1/api/forms/:id/integrations/:integrationId', 'DELETE /v1/api/forms/:id/integrations/:integrationId']),
    );
    const { integration } = await json<IntegrationBody>(await send('POST', `/v1/api/forms/${owner.form.id}/integrations`, keys.manage, { kind: 'ntfy', url: 'https://ntfy.sh/formgate-test' }));
    const ids: Record<string, string> = { id: owner.form.id, integrationId: integration.id };
    for (const scope of ['read', 'triage'] as const) {
      for (const write of writes) {
        const path = write.url.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? 'unknown');
        for (const body of [{ name: 'Taken over' }, { nonsense: true }]) {
          const res = await send(write.method, path, keys[scope], write.method === 'DELETE' ? undefined : body);
          expect(res.status, `${scope} ${write.method} ${write.url}`).toBe(403);
          expect((await json<{ error: string }>(res)).error).toBe('access_denied');
        }
      }
    }
    expect((await t.services.forms.getForm(owner.form.id)).name).toBe(owner.form.name);
    expect((await t.services.integrations.getIntegration(integration.id)).name).toBe('ntfy');
    // Hooks stay as the specification has them: any key subscribes.
    const hook = await send('POST', '/v1/api/hooks', keys.read, { formId: owner.form.id, targetUrl: 'https://hooks.example.com/in' });
    expect(hook.status).toBe(201);
  });
});
