import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { PendingListMerger } from '../../src/features/search/search-pending-merge.js';
import { mergePendingSearchEntries } from '../../src/features/search/search.repository.js';
import type { Services } from '../../src/services.js';
import { buildTestApp } from '../helpers/app.js';
import { createOwner, insertMessages, useMigratedDatabase } from '../helpers/factories.js';
import type { TestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/wait.js';

// PostgreSQL's search index (a GIN index with `fastupdate`) appends each new row's words to a
// pending list, merged into the index in bulk. Formgate merges it a moment after each commit on a
// connection of its own, so no submit batch has to (search-pending-merge.ts).
let handle: DatabaseHandle;
let services: Services;
let database: TestDatabase;
let url: string;
useMigratedDatabase((opened) => ({ handle, services, database, database: { url } } = opened));

beforeAll(async () => {
  await sql`create extension if not exists pgstattuple`.execute(handle.db);
});

/** Pages in the index's pending list, read without merging it. */
async function pendingPages(db: DatabaseHandle['db'] = handle.db): Promise<number> {
  const { rows } = await sql<{ pending_pages: number }>`select pending_pages from pgstatginindex('submissions_search_idx'::regclass)`.execute(db);
  return Number(rows[0]!.pending_pages);
}

/** Warnings a merger logged, as pino lines. */
function warningsLogger() {
  const warnings: Array<{ msg: string }> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as { msg: string }) });
  return { logger, warnings };
}

const search = (accountId: string, formId: string, q: string) => services.submissionBrowser.browse(accountId, formId, { q }).then((p) => p.submissions.map((s) => s.id));

describe("the search index's pending list, merged after the commit", () => {
  it('the merge empties the list, and every row stays findable', async () => {
    const { account, form } = await createOwner(services);
    const ids = await insertMessages(services, form.id, ...Array.from({ length: 40 }, (_, i) => `tamarind number ${i}`));
    const before = await pendingPages();
    expect(before).toBeGreaterThan(0);
    expect(await mergePendingSearchEntries(handle.db)).toBe(before);
    expect(await pendingPages()).toBe(0);
    expect(await mergePendingSearchEntries(handle.db)).toBe(0);
    expect((await search(account.id, form.id, 'tamarind')).sort()).toEqual([...ids].sort());
  });

  it('a commit wakes a merge that runs within the delay, once however many commits came meanwhile', async () => {
    const { form } = await createOwner(services);
    const { logger, warnings } = warningsLogger();
    const merger = new PendingListMerger(handle, logger, { delayMs: 50 });
    try {
      await insertMessages(services, form.id, 'a loquat', 'another loquat');
      expect(await pendingPages()).toBeGreaterThan(0);
      merger.wake();
      merger.wake();
      expect(merger.due).toBe(true);
      await waitFor(async () => !merger.due, 5000, 'the merge');
      expect(await pendingPages()).toBe(0);
      expect(warnings).toEqual([]);
    } finally {
      await merger.close();
    }
  });

  it('a submission accepted over HTTP has its words merged within a few seconds, by the server itself', async () => {
    const app = await buildTestApp({ database });
    try {
      const { account, form } = await createOwner(app.services);
      await mergePendingSearchEntries(handle.db);
      const accepted: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await app.fetch(`/v1/submit/${form.id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ message: `a medlar, the ${i}th` }),
        });
        expect(res.status).toBe(200);
        accepted.push(((await res.json()) as { submissionId: string }).submissionId);
      }
      await waitFor(async () => (await pendingPages()) === 0, 5000, 'the merge after the commits');
      const found = await app.services.submissionBrowser.browse(account.id, form.id, { q: 'medlar' });
      expect(found.submissions.map((s) => s.id).sort()).toEqual(accepted.sort());
    } finally {
      await app.close();
    }
  });

  it('after close, a commit wakes nothing', async () => {
    const merger = new PendingListMerger(handle, pino({ level: 'silent' }), { delayMs: 1 });
    await merger.close();
    merger.wake();
    expect(merger.due).toBe(false);
  });

  it('does nothing on SQLite', () => {
    const merger = new PendingListMerger({ ...handle, dialect: 'sqlite' } as DatabaseHandle, pino({ level: 'silent' }), { delayMs: 1 });
    merger.wake();
    expect(merger.due).toBe(false);
  });
});

describe('a database role that does not own the index', () => {
  const role = `formgate_t_merge_${process.pid}`;
  let admin: pg.Client;
  let asRole: DatabaseHandle;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`drop role if exists ${role}`);
    await admin.query(`create role ${role} login`);
    await admin.query(`grant usage on schema public to ${role}; grant select, insert, update, delete on all tables in schema public to ${role}`);
    const roleUrl = new URL(url);
    roleUrl.username = role;
    asRole = createDatabase(roleUrl.toString(), { poolSize: 2 });
  });
  afterAll(async () => {
    await asRole?.close();
    await admin?.query(`drop owned by ${role}`);
    await admin?.query(`drop role if exists ${role}`);
    await admin?.end();
  });

  it('leaves merging to the inserts after one warning, and tries no more', async () => {
    const { form } = await createOwner(services);
    await mergePendingSearchEntries(handle.db);
    await expect(mergePendingSearchEntries(asRole.db)).rejects.toMatchObject({ code: '42501' });
    const { logger, warnings } = warningsLogger();
    const merger = new PendingListMerger(asRole, logger, { delayMs: 10 });
    try {
      await insertMessages(services, form.id, 'a quince');
      merger.wake();
      await waitFor(async () => !merger.due, 5000, 'the refused merge');
      expect(warnings.map((w) => w.msg)).toEqual([expect.stringContaining('left to the inserts')]);
      expect(await pendingPages()).toBeGreaterThan(0);
      merger.wake();
      expect(merger.due).toBe(false);
      expect(warnings).toHaveLength(1);
    } finally {
      await merger.close();
    }
  });
});
