import { describe, expect, it } from 'vitest';
import { createForm } from '../helpers/factories.js';
import { json, useWriteApi, type FormBody } from './write-api.fixture.js';

const api = useWriteApi();
const send: typeof api.send = (...args) => api.send(...args);

describe('forms through the write API', () => {
  it('creates a form with a key, settings and recipients, and reads it back with the same ETag', async () => {
    const res = await send('POST', '/v1/api/forms', api.keys.manage, {
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
    const stored = await api.t.services.forms.getForm(form.id);
    expect([stored.accountId, stored.accessKey, stored.key]).toEqual([api.owner.account.id, 'sekrit-value', 'newsletter']);

    const read = await send('GET', `/v1/api/forms/${form.id}`, api.keys.read);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(etag);
    expect((await json<FormBody>(read)).form).toEqual(form);

    // What was read can be written back as it is: every setting, secrets as "set".
    const back = await send('PATCH', `/v1/api/forms/${form.id}`, { ...api.keys.manage, 'if-match': etag! }, { name: form.name, key: form.key, isActive: form.isActive, settings: form.settings, recipients: form.recipients });
    expect(back.status).toBe(200);
    expect({ ...(await json<FormBody>(back)).form, updatedAt: form.updatedAt }).toEqual(form);
    expect((await api.t.services.forms.getForm(form.id)).accessKey).toBe('sekrit-value');
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
      const res = await send('POST', '/v1/api/forms', api.keys.manage, body);
      expect(res.status, field).toBe(400);
      const answer = await json<{ error: string; fieldErrors: Record<string, string> }>(res);
      expect(answer.error).toBe('validation_failed');
      expect(Object.keys(answer.fieldErrors), field).toContain(field);
    }
    await createForm(api.t.services, api.owner.account.id, { name: 'Keyed' }).then((f) => api.t.services.forms.updateForm(f.id, { key: 'taken' }));
    const taken = await send('POST', '/v1/api/forms', api.keys.manage, { name: 'Again', key: 'taken' });
    expect(taken.status).toBe(400);
    expect((await json<{ fieldErrors: Record<string, string> }>(taken)).fieldErrors.key).toMatch(/another form/);
    // Another account may use the same key.
    expect((await send('POST', '/v1/api/forms', api.intruderManage, { name: 'Theirs', key: 'taken' })).status).toBe(201);
  });

  it('changes a form under If-Match; a stale ETag is 412 and changes nothing', async () => {
    const created = await send('POST', '/v1/api/forms', api.keys.manage, { name: 'Patchable' });
    const { form } = await json<FormBody>(created);
    const first = created.headers.get('etag')!;

    const patched = await send('PATCH', `/v1/api/forms/${form.id}`, { ...api.keys.manage, 'if-match': first }, { name: 'Patched', isActive: false, key: 'patched', settings: { retentionDays: 30 }, recipients: ['ops@example.com'] });
    expect(patched.status).toBe(200);
    const second = patched.headers.get('etag')!;
    expect(second).not.toBe(first);
    expect((await json<FormBody>(patched)).form).toMatchObject({ name: 'Patched', isActive: 0, key: 'patched', recipients: ['ops@example.com'], settings: { retentionDays: 30 } });

    const stale = await send('PATCH', `/v1/api/forms/${form.id}`, { ...api.keys.manage, 'if-match': first }, { name: 'Lost update' });
    expect(stale.status).toBe(412);
    expect(await json(stale)).toEqual({ error: 'precondition_failed', message: expect.any(String) });
    expect((await api.t.services.forms.getForm(form.id)).name).toBe('Patched');

    // A secret changed elsewhere shows as "set" both times, and still moves the ETag.
    await api.t.services.forms.updateForm(form.id, { accessKey: 'one' });
    const before = (await send('GET', `/v1/api/forms/${form.id}`, api.keys.read)).headers.get('etag');
    await api.t.services.forms.updateForm(form.id, { accessKey: 'two' });
    const after = (await send('GET', `/v1/api/forms/${form.id}`, api.keys.read)).headers.get('etag');
    expect(after).not.toBe(before);
    // A recipient added on the dashboard moves it too.
    await api.t.services.notifications.setRecipients(form.id, ['ops@example.com', 'more@example.com'], { verified: true });
    expect((await send('GET', `/v1/api/forms/${form.id}`, api.keys.read)).headers.get('etag')).not.toBe(after);

    // "set", as read, keeps the secret; a validation error names the setting.
    const kept = await send('PATCH', `/v1/api/forms/${form.id}`, api.keys.manage, { settings: { accessKey: 'set' } });
    expect(kept.status).toBe(200);
    expect((await api.t.services.forms.getForm(form.id)).accessKey).toBe('two');
    const bad = await send('PATCH', `/v1/api/forms/${form.id}`, api.keys.manage, { settings: { language: 'xx' } });
    expect(bad.status).toBe(400);
    expect(Object.keys((await json<{ fieldErrors: object }>(bad)).fieldErrors)).toEqual(['settings.language']);
  });

  it('deletes a form under If-Match: a stale ETag is 412, then 204, then 404', async () => {
    const created = await send('POST', '/v1/api/forms', api.keys.manage, { name: 'Doomed' });
    const { form } = await json<FormBody>(created);
    const etag = created.headers.get('etag')!;
    await send('PATCH', `/v1/api/forms/${form.id}`, api.keys.manage, { name: 'Doomed, renamed' });
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, { ...api.keys.manage, 'if-match': etag })).status).toBe(412);
    const current = (await send('GET', `/v1/api/forms/${form.id}`, api.keys.read)).headers.get('etag')!;
    const res = await send('DELETE', `/v1/api/forms/${form.id}`, { ...api.keys.manage, 'if-match': current });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await api.t.services.forms.findForm(form.id)).toBeUndefined();
    expect((await send('GET', `/v1/api/forms/${form.id}`, api.keys.read)).status).toBe(404);
  });

  it("answers 404 for another account's form, as for a missing one", async () => {
    const path = `/v1/api/forms/${api.owner.form.id}`;
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'Mine now' }], ['DELETE', undefined]] as const) {
      const res = await send(method, path, api.intruderManage, body);
      expect(res.status, method).toBe(404);
      expect((await json<{ error: string }>(res)).error).toBe('not_found');
    }
    expect((await api.t.services.forms.getForm(api.owner.form.id)).name).toBe(api.owner.form.name);
  });

  it('replays the first answer to a repeat with the same Idempotency-Key, creating one form; another body is 400', async () => {
    const countBefore = (await api.t.services.forms.listForms(api.owner.account.id)).length;
    const headers = { ...api.keys.manage, 'idempotency-key': 'create-once-1' };
    const first = await send('POST', '/v1/api/forms', headers, { name: 'Once' });
    const again = await send('POST', '/v1/api/forms', headers, { name: 'Once' });
    expect([first.status, again.status]).toEqual([201, 201]);
    const firstBody = await first.text();
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect((await api.t.services.forms.listForms(api.owner.account.id)).length).toBe(countBefore + 1);

    const other = await send('POST', '/v1/api/forms', headers, { name: 'Twice' });
    expect(other.status).toBe(400);
    expect(await json<{ error: string; fieldErrors: Record<string, string> }>(other)).toMatchObject({ error: 'validation_failed', fieldErrors: { 'Idempotency-Key': expect.stringContaining('another request') } });

    // Concurrent repeats: still one form.
    const burst = await Promise.all(Array.from({ length: 4 }, () => send('POST', '/v1/api/forms', { ...api.keys.manage, 'idempotency-key': 'burst-1' }, { name: 'Burst' })));
    expect(burst.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const ids = new Set(await Promise.all(burst.map(async (r) => (await json<FormBody>(r)).form.id)));
    expect(ids.size).toBe(1);
    expect((await api.t.services.forms.listForms(api.owner.account.id)).filter((f) => f.name === 'Burst')).toHaveLength(1);

    // A replayed PATCH and DELETE change nothing more; an error is not kept.
    const { form } = await json<FormBody>(await send('POST', '/v1/api/forms', api.keys.manage, { name: 'Idem' }));
    const patchHeaders = { ...api.keys.manage, 'idempotency-key': 'patch-1' };
    expect((await send('PATCH', `/v1/api/forms/${form.id}`, patchHeaders, { settings: { maxLinks: 5000 } })).status).toBe(400);
    const ok = await send('PATCH', `/v1/api/forms/${form.id}`, patchHeaders, { settings: { maxLinks: 5 } });
    expect(ok.status).toBe(200);
    const revision = (await api.t.services.forms.getForm(form.id)).revision;
    expect((await send('PATCH', `/v1/api/forms/${form.id}`, patchHeaders, { settings: { maxLinks: 5 } })).status).toBe(200);
    expect((await api.t.services.forms.getForm(form.id)).revision).toBe(revision);
    const deleteHeaders = { ...api.keys.manage, 'idempotency-key': 'delete-1' };
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, deleteHeaders)).status).toBe(204);
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, deleteHeaders)).status).toBe(204);
    expect((await send('DELETE', `/v1/api/forms/${form.id}`, api.keys.manage)).status).toBe(404);
  });

  it('takes over a key whose first request was cut off or whose answer expired, and purges expired ones', async () => {
    const keyId = (await api.t.services.apiKeys.listApiKeys(api.owner.account.id)).find((k) => k.name === 'manage')!.id;
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const record = { api_key_id: keyId, request_hash: 'another request', status_code: 201, response: JSON.stringify({ body: { form: null }, headers: {} }) };
    await api.t.handle.db
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
      const res = await send('POST', '/v1/api/forms', { ...api.keys.manage, 'idempotency-key': key }, { name: `Taken over ${key}` });
      expect(res.status, key).toBe(201);
      expect((await json<FormBody>(res)).form.name).toBe(`Taken over ${key}`);
    }
    expect(await api.t.services.apiIdempotency.purgeExpired()).toBe(1);
    const left = await api.t.handle.db.selectFrom('api_idempotency_keys').select('idempotency_key').where('idempotency_key', 'in', ['cut-off', 'expired', 'old']).execute();
    expect(left.map((r) => r.idempotency_key).sort()).toEqual(['cut-off', 'expired']);
  });

  it('lets exactly one of several PATCHes holding the same ETag through', async () => {
    const created = await send('POST', '/v1/api/forms', api.keys.manage, { name: 'Raced' });
    const { form } = await json<FormBody>(created);
    const etag = created.headers.get('etag')!;
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((n) => send('PATCH', `/v1/api/forms/${form.id}`, { ...api.keys.manage, 'if-match': etag }, { name: `Raced ${n}` })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412]);
    const winner = answers.find((r) => r.status === 200)!;
    expect((await api.t.services.forms.getForm(form.id)).name).toBe((await json<FormBody>(winner)).form.name);
  });

  it('records writes in the audit log with the key as the actor', async () => {
    const { form } = await json<FormBody>(await send('POST', '/v1/api/forms', api.keys.manage, { name: 'Audited' }));
    await send('PATCH', `/v1/api/forms/${form.id}`, api.keys.manage, { settings: { maxLinks: 3 } });
    const manageKey = (await api.t.services.apiKeys.listApiKeys(api.owner.account.id)).find((k) => k.name === 'manage')!;
    const events = (await api.t.services.audit.listEvents(api.owner.account.id)).filter((e) => e.target?.id === form.id);
    expect(events.map((e) => [e.action, e.actor.type, e.actor.id])).toEqual(
      expect.arrayContaining([
        ['form.created', 'api_key', manageKey.id],
        ['form.updated', 'api_key', manageKey.id],
      ]),
    );
  });
});
