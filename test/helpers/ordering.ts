import { expect } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { insertSubmissionRows } from '../../src/features/submit/submission.repository.js';
import { createOwner, newSubmissionRow, servicesFor } from './factories.js';

// Row order must be bytewise on both databases: a PostgreSQL whose default collation is
// linguistic (ICU en-US here) sorts `sub_a` before `sub_B` and all but ignores punctuation, so
// without COLLATE "C" on the ordering columns ties came back in another order than on SQLite.

const SAME_MS = '2026-05-01T00:00:00.000Z';
// Differ only in case (valid base62 IDs, so they page with cursors too).
const caseIds = ['sub_a', 'sub_A', 'sub_b', 'sub_B', 'sub_0', 'sub_Z', 'sub_z', 'sub_aB', 'sub_Ab', 'sub_AB', 'sub_ab'];
// Differ only in punctuation.
const punctuationIds = ['sub_c-d', 'sub_c_d', 'sub_cd', 'sub_c.d', 'sub_c~d', 'sub_-cd', 'sub__cd', 'sub_C-d'];

/** Newest first, ties by ID descending, both compared by UTF-16 code unit = byte for ASCII. */
function expectedOrder(rows: Array<{ id: string; createdAt: string }>): string[] {
  return [...rows]
    .sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1))
    .map((r) => r.id);
}

/** Pages case- and punctuation-only ties through the API's query service and checks byte order. */
export async function checkOrdering(handle: DatabaseHandle): Promise<void> {
  const services = servicesFor(handle);
  const owner = await createOwner(services);

  // Case: a tie in one millisecond plus neighbours either side, walked in pages of 3 so the
  // keyset comparison (created_at, id) < (…) runs under the same collation as the ORDER BY.
  const paged = await services.forms.createForm(owner.account.id, { name: 'case' });
  const caseRows = [
    ...caseIds.map((id) => ({ id, createdAt: SAME_MS })),
    { id: 'sub_Q', createdAt: '2026-05-01T00:00:00.001Z' },
    { id: 'sub_q', createdAt: '2026-04-30T23:59:59.999Z' },
  ];
  const caseSubmissionRows = caseRows.map((r) => newSubmissionRow(paged.id, { id: r.id, created_at: r.createdAt }));
  await handle.db.transaction().execute((trx) => insertSubmissionRows(trx, caseSubmissionRows));
  const walked: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await services.submissionQueries.listSubmissions(owner.account.id, paged.id, { limit: 3, ...(cursor ? { cursor } : {}) });
    walked.push(...page.submissions.map((s) => s.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(walked).toEqual(expectedOrder(caseRows));
  expect(walked.slice(1, 1 + caseIds.length)).toEqual(['sub_z', 'sub_b', 'sub_ab', 'sub_aB', 'sub_a', 'sub_Z', 'sub_B', 'sub_Ab', 'sub_AB', 'sub_A', 'sub_0']);

  // Punctuation: one page.
  const punctuated = await services.forms.createForm(owner.account.id, { name: 'punctuation' });
  const punctuatedRows = punctuationIds.map((id) => newSubmissionRow(punctuated.id, { id, created_at: SAME_MS }));
  await handle.db.transaction().execute((trx) => insertSubmissionRows(trx, punctuatedRows));
  const page = await services.submissionQueries.listSubmissions(owner.account.id, punctuated.id, { limit: 100 });
  expect(page.submissions.map((s) => s.id)).toEqual(expectedOrder(punctuationIds.map((id) => ({ id, createdAt: SAME_MS }))));
}

