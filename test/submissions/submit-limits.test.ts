import { randomUUID } from 'node:crypto';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { FORM_CACHE_TTL_MS } from '../../src/features/forms/form-cache.js';
import { FormService } from '../../src/features/forms/form.service.js';
import { newId } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { createOwner, servicesFor } from '../helpers/factories.js';
import { JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';

const LIMIT = 5;
let t: AppUnderTest;

beforeAll(async () => {
  t = await buildTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
afterAll(async () => t?.close());

/** A migrated database of its own with an owner and a form, logging every query made through its handle. */
async function databaseWithQueryLog() {
  const queries: CompiledQuery[] = [];
  const database = await createTestDatabase();
  const handle = database.open({ onQuery: (q) => queries.push(q) });
  await migrateToLatest(handle);
  const { form } = await createOwner(servicesFor(handle));
  return {
    queries,
    handle,
    form,
    drop: async () => {
      await handle.close();
      await database.drop();
    },
  };
}

/** POSTs to `count` form IDs nobody created, `concurrency` at a time over keep-alive. */
async function spray(count: number, concurrency = 32): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const res = await t.fetch(`/v1/submit/frm_${randomUUID().replaceAll('-', '')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...JSON_ACCEPT },
          body: '{}',
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

describe('submit rate limit cannot be walked around (in-process counters)', () => {
  it('5,001 invented form IDs do not reset the counter of the form under attack', async () => {
    const { form } = await createOwner(t.services);
    const before: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) before.push((await submit(t, form.id, { json: { i } }, JSON_ACCEPT)).status);
    expect(before).toEqual([...Array(LIMIT).fill(200), 429]);

    const sprayed = await spray(5001);
    // Unknown forms share one counter per client: the first few are 404, the rest 429.
    expect(sprayed.get(404)).toBe(LIMIT);
    expect(sprayed.get(429)).toBe(5001 - LIMIT);

    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push((await submit(t, form.id, { json: { i } }, JSON_ACCEPT)).status);
    expect(after).toEqual(Array(10).fill(429));
    expect(await countStored(t, form.id)).toBe(LIMIT);
  }, 60_000);

  it('counts requests that fail validation: after 5 malformed bodies a valid one is 429', async () => {
    const { form } = await createOwner(t.services);
    for (let i = 0; i < LIMIT; i++) {
      const res = await submit(t, form.id, { raw: '{not json', contentType: 'application/json' }, JSON_ACCEPT);
      expect(res.status).toBe(400);
    }
    const res = await submit(t, form.id, { json: { ok: 1 } }, JSON_ACCEPT);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await countStored(t, form.id)).toBe(0);
  });

  it('answers an impossible form ID (NUL byte, over-long) 404 while the limiter is on, never 500', async () => {
    // Its own app: the spray above used up this client's counter for unknown forms.
    const fresh = await buildTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    try {
      for (const id of ['frm_%00x', `frm_${'a'.repeat(500)}`]) {
        const res = await fresh.fetch(`/v1/submit/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...JSON_ACCEPT },
          body: '{}',
        });
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ error: 'not_found' });
      }
    } finally {
      await fresh.close();
    }
  });
});

describe('a flood of invented form IDs', () => {
  /** The app's queries that read the forms table, with their parameters. */
  function formReads(queries: CompiledQuery[]): CompiledQuery[] {
    return queries.filter((q) => /from "forms"/.test(q.sql));
  }
  /** The form directory's reads: IDs only, a page of all of them or those created since. */
  const isDirectoryRead = (q: CompiledQuery) => /^select "id" from "forms"/.test(q.sql);

  it('never pushes a real form out: it is read at most once a second, its refusals and acceptances touch nothing else', async () => {
    const queries: CompiledQuery[] = [];
    const app = await buildTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: '0' }, databaseOptions: { onQuery: (q) => queries.push(q) } });
    try {
      const o = await createOwner(app.services, { form: { accessKey: 'open-sesame' } });
      // The file sweeper's run at start looks for files whose submission is gone: done before the
      // log starts (its next run is minutes away).
      await app.services.files.sweep();
      queries.length = 0;
      const started = Date.now();
      const statuses = new Map<number, number>();
      // 4,000 invented IDs, half of the right shape (each needs a read), half of another (none), the real form between them.
      await Promise.all(
        Array.from({ length: 16 }, async (_, worker) => {
          for (let i = 0; i < 250; i++) {
            const id = i % 2 === 0 ? newId('frm') : `frm_${randomUUID()}`;
            const res = await submit(app, id, { json: { i } }, JSON_ACCEPT);
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (i % 25 === 0) {
              const refused = await submit(app, o.form.id, { json: { worker, i } }, JSON_ACCEPT);
              expect(refused.status).toBe(403);
              await refused.arrayBuffer();
            }
          }
        }),
      );
      const seconds = (Date.now() - started) / 1000;
      expect(statuses).toEqual(new Map([[404, 4000]]));
      // The submit path read the forms table and nothing else (the outbox dispatcher polls its own tables meanwhile): nothing stored.
      expect(formReads(queries).length).toBeGreaterThan(0);
      expect(formReads(queries).every((q) => q.sql.startsWith('select'))).toBe(true);
      // (SQLite's search indexer, catching up at start, reads submissions on a timer of its own;
      // on PostgreSQL it merges the search index's pending list at start, and the dispatcher's
      // poll claims deliveries and messages in statements that join them to their submissions.)
      const ownWork = /submissions_fts|submissions_search_idx|hook_deliveries|email_messages|integration_messages/;
      expect(queries.filter((q) => /submissions|idempotency/.test(q.sql) && !ownWork.test(q.sql))).toEqual([]);
      // The real form: read again only when its second is up, however many invented IDs came between.
      const realFormReads = queries.filter((q) => q.parameters.includes(o.form.id)).length;
      expect(realFormReads).toBeGreaterThanOrEqual(1);
      expect(realFormReads).toBeLessThanOrEqual(Math.ceil(seconds * 1000 / FORM_CACHE_TTL_MS) + 1);
      // IDs of another shape were answered without a query; those of the right shape by the
      // form directory, read at most once a second (its first read, then what was created since).
      const rowReads = formReads(queries).filter((q) => !isDirectoryRead(q));
      expect(rowReads.flatMap((q) => q.parameters).filter((p) => typeof p !== 'string' || p.length !== o.form.id.length)).toEqual([]);
      const directoryReads = formReads(queries).filter(isDirectoryRead).length;
      expect(directoryReads).toBeGreaterThanOrEqual(1);
      expect(directoryReads).toBeLessThanOrEqual(Math.ceil(seconds * 1000 / FORM_CACHE_TTL_MS) + 1);
      // Once it was read, the 2,000 invented IDs of the right shape needed no read of their own.
      expect(rowReads.flatMap((q) => q.parameters).filter((p) => p !== o.form.id).length).toBeLessThan(2000);
      const accepted = await submit(app, o.form.id, { json: { a: 1, access_key: 'open-sesame' } }, JSON_ACCEPT);
      expect(accepted.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('30,000 invented IDs looked up within the cache second leave a real form cached: no read for it afterwards', async () => {
    const { queries, handle, form, drop } = await databaseWithQueryLog();
    try {
      // A stopped clock: the whole flood happens within the cache's second, however slow the machine.
      const forms = new FormService(handle.db, {}, () => 1_000_000);
      expect((await forms.findFormCached(form.id))?.id).toBe(form.id);
      for (let round = 0; round < 30; round++) {
        const found = await Promise.all(Array.from({ length: 1000 }, () => forms.findFormCached(newId('frm'))));
        expect(found.every((f) => f === undefined)).toBe(true);
      }
      queries.length = 0;
      expect((await forms.findFormCached(form.id))?.id).toBe(form.id);
      expect(queries).toHaveLength(0);
    } finally {
      await drop();
    }
  });
});

describe('the form directory on the submit path', () => {
  it('refuses invented IDs without reading a row or filling the cache, and sees a form created through another instance within a second', async () => {
    const { queries, handle, form, drop } = await databaseWithQueryLog();
    try {
      let now = 1_000_000;
      const clock = () => now;
      const here = new FormService(handle.db, {}, clock);
      const elsewhere = new FormService(handle.db, {}, clock);
      // Until its first read the directory tells nothing: the lookup goes the cache's way.
      const first = newId('frm');
      expect(here.peekFormCached(first)).toBeUndefined();
      await here.readFormDirectory();
      expect(await here.findFormCached(first)).toBeUndefined();
      expect((await here.findFormCached(form.id))?.id).toBe(form.id);
      queries.length = 0;
      const invented = Array.from({ length: 5000 }, () => newId('frm'));
      expect(invented.every((id) => here.peekFormCached(id) === null)).toBe(true);
      expect(await Promise.all(invented.slice(0, 100).map((id) => here.findFormCached(id)))).toEqual(invented.slice(0, 100).map(() => undefined));
      expect(queries).toEqual([]);

      const madeElsewhere = await elsewhere.createForm(form.accountId, { name: 'Made elsewhere' });
      const madeHere = await here.createForm(form.accountId, { name: 'Made here' });
      // Within the directory's second: the form made here is known, the other one not yet.
      expect(here.peekFormCached(madeHere.id)).toBeUndefined();
      expect((await here.findFormCached(madeHere.id))?.id).toBe(madeHere.id);
      expect(here.peekFormCached(madeElsewhere.id)).toBeNull();
      now += FORM_CACHE_TTL_MS;
      queries.length = 0;
      // Stale: the lookup cannot be answered from memory, and starts one read of the forms created since.
      expect(here.peekFormCached(madeElsewhere.id)).toBeUndefined();
      await here.readFormDirectory();
      expect(queries).toHaveLength(1);
      expect(queries[0]!.sql).toMatch(/^select "id" from "forms" where "created_at" >= /);
      expect(here.peekFormCached(madeElsewhere.id)).toBeUndefined();
      expect((await here.findFormCached(madeElsewhere.id))?.id).toBe(madeElsewhere.id);
      expect(here.peekFormCached(newId('frm'))).toBeNull();
    } finally {
      await drop();
    }
  });
});
