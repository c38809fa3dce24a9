import { describe, expect, it } from 'vitest';
import { createForm } from '../helpers/factories.js';
import { json, useWriteApi, type IntegrationBody } from './write-api.fixture.js';

const api = useWriteApi();
const send: typeof api.send = (...args) => api.send(...args);

describe('integrations through the write API', () => {
  const slack = { kind: 'slack', name: 'Team chat', url: 'https://hooks.slack.com/services/T000/B000/XXXX' };

  it('adds, reads, changes and removes an integration; secrets are never shown', async () => {
    const base = `/v1/api/forms/${api.owner.form.id}/integrations`;
    const added = await send('POST', base, api.keys.manage, slack);
    expect(added.status).toBe(201);
    const { integration } = await json<IntegrationBody>(added);
    expect(integration).toMatchObject({ formId: api.owner.form.id, kind: 'slack', name: 'Team chat', enabled: true, url: 'set' });
    expect(JSON.stringify(integration)).not.toContain('XXXX');
    const etag = added.headers.get('etag')!;

    const listed = await json<{ integrations: Array<{ id: string }> }>(await send('GET', base, api.keys.read));
    expect(listed.integrations.map((i) => i.id)).toContain(integration.id);
    const read = await send('GET', `${base}/${integration.id}`, api.keys.read);
    expect(read.headers.get('etag')).toBe(etag);

    const changed = await send('PATCH', `${base}/${integration.id}`, { ...api.keys.manage, 'if-match': etag }, { name: 'Renamed', enabled: false, url: 'https://hooks.slack.com/services/T000/B000/YYYY' });
    expect(changed.status).toBe(200);
    expect((await json<IntegrationBody>(changed)).integration).toMatchObject({ name: 'Renamed', enabled: false, url: 'set' });
    expect(changed.headers.get('etag')).not.toBe(etag);
    const stale = await send('PATCH', `${base}/${integration.id}`, { ...api.keys.manage, 'if-match': etag }, { name: 'Lost' });
    expect(stale.status).toBe(412);

    // A new secret alone moves the ETag, though the resource shows "set" before and after.
    const beforeSecret = changed.headers.get('etag')!;
    const secret = await send('PATCH', `${base}/${integration.id}`, { ...api.keys.manage, 'if-match': beforeSecret }, { url: 'https://hooks.slack.com/services/T000/B000/ZZZZ' });
    expect(secret.status).toBe(200);
    expect(secret.headers.get('etag')).not.toBe(beforeSecret);

    const bad = await send('PATCH', `${base}/${integration.id}`, api.keys.manage, { url: 'http://hooks.slack.com/x' });
    expect(bad.status).toBe(400);
    expect(Object.keys((await json<{ fieldErrors: object }>(bad)).fieldErrors)).toEqual(['url']);

    expect((await send('DELETE', `${base}/${integration.id}`, { ...api.keys.manage, 'if-match': etag })).status).toBe(412);
    expect((await send('DELETE', `${base}/${integration.id}`, { ...api.keys.manage, 'if-match': secret.headers.get('etag')! })).status).toBe(204);
    expect((await send('GET', `${base}/${integration.id}`, api.keys.read)).status).toBe(404);
  });

  it('refuses bad input naming the field, through the same checks as the dashboard', async () => {
    const base = `/v1/api/forms/${api.owner.form.id}/integrations`;
    for (const [body, field] of [
      [{ kind: 'pager' }, 'kind'],
      [{ kind: 'slack', url: 'https://127.0.0.1/hook' }, 'url'],
      [{ kind: 'telegram', token: 'nope', chatId: '42' }, 'token'],
      [{ name: 'no kind' }, 'kind'],
    ] as const) {
      const res = await send('POST', base, api.keys.manage, body);
      expect(res.status, field).toBe(400);
      expect(Object.keys((await json<{ fieldErrors: object }>(res)).fieldErrors), field).toContain(field);
    }
  });

  it("answers 404 for another account's integration, and for one reached through another form", async () => {
    const { integration } = await json<IntegrationBody>(await send('POST', `/v1/api/forms/${api.owner.form.id}/integrations`, api.keys.manage, slack));
    const path = `/v1/api/forms/${api.owner.form.id}/integrations/${integration.id}`;
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await send(method, path, api.intruderManage, method === 'PATCH' ? { name: 'x' } : undefined);
      expect(res.status, method).toBe(404);
    }
    expect((await send('POST', `/v1/api/forms/${api.owner.form.id}/integrations`, api.intruderManage, slack)).status).toBe(404);
    const otherForm = await createForm(api.t.services, api.owner.account.id, { name: 'Other' });
    expect((await send('PATCH', `/v1/api/forms/${otherForm.id}/integrations/${integration.id}`, api.keys.manage, { name: 'x' })).status).toBe(404);
    expect((await api.t.services.integrations.getIntegration(integration.id)).name).toBe('Team chat');
  });

  it('replays an integration added with an Idempotency-Key instead of adding it twice', async () => {
    const form = await createForm(api.t.services, api.owner.account.id, { name: 'Idempotent integrations' });
    const headers = { ...api.keys.manage, 'idempotency-key': 'int-1' };
    const first = await send('POST', `/v1/api/forms/${form.id}/integrations`, headers, slack);
    const again = await send('POST', `/v1/api/forms/${form.id}/integrations`, headers, slack);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(await again.text()).toBe(await first.text());
    expect(await api.t.services.integrations.listIntegrations(form.id)).toHaveLength(1);
  });
});

describe('integrations under retries and races', () => {
  it('replays a PATCH and a DELETE of an integration, and lets one of several PATCHes holding one ETag through', async () => {
    const form = await createForm(api.t.services, api.owner.account.id, { name: 'Raced integrations' });
    const base = `/v1/api/forms/${form.id}/integrations`;
    const added = await send('POST', base, api.keys.manage, { kind: 'discord', url: 'https://discord.com/api/webhooks/1/abc' });
    const { integration } = await json<IntegrationBody>(added);
    const etag = added.headers.get('etag')!;
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => send('PATCH', `${base}/${integration.id}`, { ...api.keys.manage, 'if-match': etag }, { name: `Raced ${n}` })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 412, 412, 412]);

    const patch = { ...api.keys.manage, 'idempotency-key': 'int-patch-1' };
    const first = await send('PATCH', `${base}/${integration.id}`, patch, { enabled: false });
    const revision = (await api.t.services.integrations.getIntegration(integration.id)).revision;
    const again = await send('PATCH', `${base}/${integration.id}`, patch, { enabled: false });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await again.text()).toBe(await first.text());
    expect((await api.t.services.integrations.getIntegration(integration.id)).revision).toBe(revision);

    const remove = { ...api.keys.manage, 'idempotency-key': 'int-delete-1' };
    expect((await send('DELETE', `${base}/${integration.id}`, remove)).status).toBe(204);
    expect((await send('DELETE', `${base}/${integration.id}`, remove)).status).toBe(204);
    expect((await send('DELETE', `${base}/${integration.id}`, api.keys.manage)).status).toBe(404);
    expect(await api.t.services.integrations.listIntegrations(form.id)).toHaveLength(0);
  });
});

describe('hooks, as the specification has them', () => {
  it('take an Idempotency-Key too: a repeat gets the same hook and secret, and subscribes nothing more', async () => {
    const form = await createForm(api.t.services, api.owner.account.id, { name: 'Hooked' });
    const headers = { ...api.keys.read, 'idempotency-key': 'hook-1' };
    const body = { formId: form.id, targetUrl: 'https://hooks.example.com/once' };
    const first = await send('POST', '/v1/api/hooks', headers, body);
    const again = await send('POST', '/v1/api/hooks', headers, body);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(await again.text()).toBe(await first.text());
    expect((await api.t.services.hooks.listHooks(api.owner.account.id)).filter((h) => h.formId === form.id)).toHaveLength(1);
  });
});

describe('who may write', () => {
  /** Writes the specification gives every key: REST hooks. */
  const SPECIFICATION_WRITES = new Set(['POST /v1/api/hooks', 'DELETE /v1/api/hooks/:id', 'POST /v1/api/hooks/:id/redeliver']);

  it('refuses every write under /v1/api to read and triage keys with 403, whatever the body', async () => {
    const writes = api.routes
      .flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]).map((m) => ({ method: m, url: r.url })))
      .filter((r) => r.url.startsWith('/v1/api/') && !['GET', 'HEAD', 'OPTIONS'].includes(r.method))
      .filter((r) => !SPECIFICATION_WRITES.has(`${r.method} ${r.url}`));
    // The writes of this API, at least: a route missing here would go unchecked.
    expect(writes.map((w) => `${w.method} ${w.url}`)).toEqual(
      expect.arrayContaining(['POST /v1/api/forms', 'PATCH /v1/api/forms/:id', 'DELETE /v1/api/forms/:id', 'POST /v1/api/forms/:id/integrations', 'PATCH /v1/api/forms/:id/integrations/:integrationId', 'DELETE /v1/api/forms/:id/integrations/:integrationId']),
    );
    const { integration } = await json<IntegrationBody>(await send('POST', `/v1/api/forms/${api.owner.form.id}/integrations`, api.keys.manage, { kind: 'ntfy', url: 'https://ntfy.sh/formgate-test' }));
    const ids: Record<string, string> = { id: api.owner.form.id, integrationId: integration.id };
    for (const scope of ['read', 'triage'] as const) {
      for (const write of writes) {
        const path = write.url.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? 'unknown');
        for (const body of [{ name: 'Taken over' }, { nonsense: true }]) {
          const res = await send(write.method, path, api.keys[scope], write.method === 'DELETE' ? undefined : body);
          expect(res.status, `${scope} ${write.method} ${write.url}`).toBe(403);
          expect((await json<{ error: string }>(res)).error).toBe('access_denied');
        }
      }
    }
    expect((await api.t.services.forms.getForm(api.owner.form.id)).name).toBe(api.owner.form.name);
    expect((await api.t.services.integrations.getIntegration(integration.id)).name).toBe('ntfy');
    // Hooks stay as the specification has them: any key subscribes.
    const hook = await send('POST', '/v1/api/hooks', api.keys.read, { formId: api.owner.form.id, targetUrl: 'https://hooks.example.com/in' });
    expect(hook.status).toBe(201);
  });
});
