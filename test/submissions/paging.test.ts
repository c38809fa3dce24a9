import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner, insertSubmissions } from '../helpers/factories.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

interface Page {
  submissions: Array<{ id: string; createdAt: string }>;
  nextCursor: string | null;
}

// A walk of 1,000 rows takes 143 requests, more than one key may make in a minute (120): use a
// fresh key of the same account every 100 requests.
let requests = 0;
let authorization = '';
async function page(formId: string, cursor: string | null, limit = 7): Promise<Page> {
  if (requests++ % 100 === 0) authorization = `Bearer ${(await t.services.apiKeys.createApiKey(owner.account.id, 'paging')).apiKey}`;
  const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const res = await t.fetch(`/v1/api/forms/${formId}/submissions?${query}`, { headers: { authorization } });
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

/** Newest first: createdAt descending, ties by id descending. */
const newestFirst = (a: { id: string; createdAt: string }, b: { id: string; createdAt: string }) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

async function walk(formId: string, between?: (pageNumber: number) => Promise<void>) {
  const seen: Page['submissions'] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const p = await page(formId, cursor);
    seen.push(...p.submissions);
    cursor = p.nextCursor;
    pages++;
    if (cursor && between) await between(pages);
  } while (cursor);
  return { seen, pages };
}

describe('cursor paging', () => {
  it('walks 1,000 submissions with limit=7: each exactly once, newest first, nextCursor null at the end', async () => {
    const form = await createForm(t.services, owner.account.id);
    const base = Date.parse('2026-03-01T00:00:00.000Z');
    // Many share one millisecond: 1,000 rows over 50 distinct timestamps.
    const ids = await insertSubmissions(
      t.services,
      form.id,
      Array.from({ length: 1000 }, (_, i) => ({ createdAt: new Date(base + (i % 50)).toISOString() })),
    );
    const { seen, pages } = await walk(form.id);
    expect(pages).toBe(Math.ceil(1000 / 7));
    expect(seen).toHaveLength(1000);
    expect(new Set(seen.map((s) => s.id))).toEqual(new Set(ids));
    expect(seen).toEqual([...seen].sort(newestFirst));
  });

  it('when all rows share one millisecond the order is by id, still each once', async () => {
    const form = await createForm(t.services, owner.account.id);
    const ids = await insertSubmissions(t.services, form.id, Array.from({ length: 100 }, () => ({ createdAt: '2026-03-02T00:00:00.000Z' })));
    const { seen } = await walk(form.id);
    expect(seen.map((s) => s.id)).toEqual([...ids].sort().reverse());
  });

  it('new submissions arriving between pages neither repeat nor hide older ones', async () => {
    const form = await createForm(t.services, owner.account.id);
    const base = Date.parse('2026-03-03T00:00:00.000Z');
    const ids = await insertSubmissions(t.services, form.id, Array.from({ length: 100 }, (_, i) => ({ createdAt: new Date(base + i).toISOString() })));
    const late: string[] = [];
    const { seen } = await walk(form.id, async (n) => {
      late.push(...(await insertSubmissions(t.services, form.id, [{ createdAt: new Date(base + 10_000 + n).toISOString() }])));
    });
    // The walk started before the late rows existed: it sees each original exactly once and none of the newer rows.
    expect(seen.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(late.length).toBeGreaterThan(10);
    const fresh = await page(form.id, null, 100);
    expect(fresh.submissions.slice(0, late.length).map((s) => s.id)).toEqual([...late].reverse());
  });
});
