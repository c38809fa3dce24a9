import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormgateApi, FormgateApiError, type FormgateApi } from '../src/api/index.js';
import { buildTestApp, type AppUnderTest } from '../../test/helpers/app.js';
import { createForm, createOwner, insertSubmissions } from '../../test/helpers/factories.js';

// The typed client against the app: every call is an HTTP request to its routes (injected, no
// socket), and the test app checks each answer against the document the client was generated from.
let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;
let api: FormgateApi;
/** Every request the client made, as "METHOD path?query". */
const requests: string[] = [];

beforeAll(async () => {
  // Hooks on loopback targets are refused unless an operator allows private targets.
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  owner = await createOwner(t.services, { planId: 'pro' });
  api = createFormgateApi({
    baseUrl: `${t.config.baseUrl}/`,
    apiKey: owner.apiKey,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      return t.fetch(request);
    },
  });
});
afterAll(async () => t?.close());

describe('the typed management-API client', () => {
  it('reads the account and its forms', async () => {
    const second = await createForm(t.services, owner.account.id, { name: 'Second' });
    expect(await api.getMe()).toEqual({
      id: owner.account.id,
      email: owner.account.email,
      displayName: owner.account.displayName,
      planId: 'pro',
    });
    const forms = await api.listForms();
    expect(forms.map((f) => f.id).sort()).toEqual([owner.form.id, second.id].sort());
    expect(forms.find((f) => f.id === second.id)?.name).toBe('Second');
  });

  it('walks every submission of a form through the paging iterator, newest first, each once', async () => {
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const ids = await insertSubmissions(
      t.services,
      owner.form.id,
      Array.from({ length: 60 }, (_, i) => ({ createdAt: new Date(start + i * 1000).toISOString(), payload: { n: i } })),
    );
    requests.length = 0;
    const seen: string[] = [];
    const numbers: unknown[] = [];
    for await (const submission of api.submissions(owner.form.id, { limit: 25 })) {
      seen.push(submission.id);
      numbers.push(submission.payload.n);
    }
    expect(seen).toEqual([...ids].reverse());
    expect(numbers).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(new Set(seen).size).toBe(60);
    // 25 + 25 + 10: three pages, the next two asked for with the previous page's cursor.
    expect(requests).toHaveLength(3);
    expect(requests[0]).toBe(`GET /v1/api/forms/${owner.form.id}/submissions?limit=25`);
    expect(requests.slice(1).every((r) => /\?limit=25&cursor=[^&]+$/.test(r))).toBe(true);

    const one = await api.getSubmission(ids[7]!);
    expect(one).toMatchObject({ id: ids[7], payload: { n: 7 }, isSpam: 0, spamReason: null });
  });

  it('filters the iterator by spam and dates, and types each submission\'s triage', async () => {
    const form = await createForm(t.services, owner.account.id, { name: 'Filtered' });
    const ids = await insertSubmissions(
      t.services,
      form.id,
      [1, 2, 3, 4].map((d) => ({ createdAt: `2026-02-0${d}T09:00:00.000Z`, isSpam: d === 3 })),
    );
    await t.services.inbox.apply(owner.account.id, [ids[1]!], { kind: 'tag', tag: 'vip' });
    const seen: Array<{ id: string; tags: string[] }> = [];
    for await (const s of api.submissions(form.id, { limit: 1, spam: 'false', since: '2026-02-02', until: '2026-02-04T09:00:00Z' })) {
      seen.push({ id: s.id, tags: s.triage.tags });
    }
    expect(seen).toEqual([{ id: ids[1], tags: ['vip'] }]);
    const bad = await api.listFormSubmissions(form.id, { since: 'last week' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed', fieldErrors: { since: expect.any(String) } });
  });

  it('stops after one request on a form without submissions', async () => {
    const empty = await createForm(t.services, owner.account.id, { name: 'Empty' });
    requests.length = 0;
    const seen = [];
    for await (const submission of api.submissions(empty.id)) seen.push(submission);
    expect(seen).toEqual([]);
    expect(requests).toEqual([`GET /v1/api/forms/${empty.id}/submissions`]);
  });

  it('creates, lists and deletes a hook', async () => {
    const created = await api.createHook({ formId: owner.form.id, targetUrl: 'https://127.0.0.1:9/formgate' });
    expect(created).toMatchObject({ formId: owner.form.id, targetUrl: 'https://127.0.0.1:9/formgate' });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await api.listHooks()).map((h) => h.id)).toEqual([created.id]);
    expect(await api.listHooks()).toEqual([{ id: created.id, formId: created.formId, targetUrl: created.targetUrl, createdAt: created.createdAt }]);
    // Nothing failed yet: nothing to send again.
    expect(await api.redeliverHook(created.id, { since: '2026-01-01T00:00:00.000Z' })).toBe(0);
    await api.deleteHook(created.id);
    expect(await api.listHooks()).toEqual([]);
    await expect(api.redeliverHook(created.id, { since: '2026-01-01T00:00:00.000Z' })).rejects.toBeInstanceOf(FormgateApiError);
  });

  it('throws the error envelope as a FormgateApiError', async () => {
    const missing = await api.getSubmission('sub_doesnotexist').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(FormgateApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });

    const badLimit = await api.listFormSubmissions(owner.form.id, { limit: 0 }).catch((e: unknown) => e);
    expect(badLimit).toMatchObject({ status: 400, code: 'validation_failed', fieldErrors: { limit: expect.any(String) } });

    const badHook = await api.createHook({ formId: owner.form.id, targetUrl: 'ftp://example.com/x' }).catch((e: unknown) => e);
    expect(badHook).toMatchObject({ status: 400, code: 'validation_failed' });

    const anonymous = createFormgateApi({ baseUrl: t.config.baseUrl, apiKey: 'fgk_not-a-key', fetch: t.fetch });
    const denied = await anonymous.getMe().catch((e: unknown) => e);
    expect(denied).toMatchObject({ status: 401, code: 'unauthorized', message: expect.stringContaining('API key') });
  });
});
