import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';

export type LessonLabel = 'spam' | 'ham';

export async function findSpamFilterModelRow(db: Executor, accountId: string) {
  return db.selectFrom('spam_filter_models').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Token rows changed after `version` (every row when 0). */
export async function listSpamFilterTokensSince(db: Executor, accountId: string, version: number) {
  return db
    .selectFrom('spam_filter_tokens')
    .select(['token', 'spam_count', 'ham_count'])
    .where('account_id', '=', accountId)
    .where('version', '>', version)
    .execute();
}

export async function findLessonLabels(trx: Trx, submissionIds: string[]): Promise<Map<string, LessonLabel>> {
  if (submissionIds.length === 0) return new Map();
  const rows = await trx
    .selectFrom('spam_filter_lessons')
    .select(['submission_id', 'label'])
    .where('submission_id', 'in', submissionIds)
    .execute();
  return new Map(rows.map((r) => [r.submission_id, r.label === 'spam' ? 'spam' : 'ham']));
}

/**
 * Adds to the account's example counts and bumps its version; returns the new version. The
 * update locks the account's row until the transaction ends, so lessons of one account commit
 * one after the other and token rows carry increasing versions.
 */
export async function bumpSpamFilterModel(trx: Trx, accountId: string, spamDelta: number, hamDelta: number): Promise<number> {
  await trx
    .insertInto('spam_filter_models')
    .values({ account_id: accountId, spam_examples: 0, ham_examples: 0, version: 0 })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  await trx
    .updateTable('spam_filter_models')
    .set({
      version: sql`version + 1`,
      spam_examples: sql`case when spam_examples + ${spamDelta} < 0 then 0 else spam_examples + ${spamDelta} end`,
      ham_examples: sql`case when ham_examples + ${hamDelta} < 0 then 0 else ham_examples + ${hamDelta} end`,
    })
    .where('account_id', '=', accountId)
    .execute();
  const row = await trx.selectFrom('spam_filter_models').select('version').where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.version);
}

const CHUNK = 500;

/**
 * Adds the deltas to the account's token counts, at `version`. Increases are upserts; a decrease
 * (a lesson taken back) updates existing rows only and never goes below zero.
 */
export async function addToSpamFilterTokens(
  trx: Trx,
  accountId: string,
  version: number,
  deltas: ReadonlyMap<string, { spam: number; ham: number }>,
): Promise<void> {
  const groups = new Map<string, { spam: number; ham: number; tokens: string[] }>();
  for (const [token, d] of deltas) {
    if (d.spam === 0 && d.ham === 0) continue;
    const key = `${d.spam} ${d.ham}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { spam: d.spam, ham: d.ham, tokens: [] }));
    group.tokens.push(token);
  }
  for (const { spam, ham, tokens } of groups.values()) {
    for (let i = 0; i < tokens.length; i += CHUNK) {
      const chunk = tokens.slice(i, i + CHUNK);
      if (spam >= 0 && ham >= 0) {
        await trx
          .insertInto('spam_filter_tokens')
          .values(chunk.map((token) => ({ account_id: accountId, token, spam_count: spam, ham_count: ham, version })))
          .onConflict((oc) =>
            oc.columns(['account_id', 'token']).doUpdateSet({
              spam_count: sql`spam_filter_tokens.spam_count + excluded.spam_count`,
              ham_count: sql`spam_filter_tokens.ham_count + excluded.ham_count`,
              version: sql`excluded.version`,
            }),
          )
          .execute();
      } else {
        await trx
          .updateTable('spam_filter_tokens')
          .set({
            spam_count: sql`case when spam_count + ${spam} < 0 then 0 else spam_count + ${spam} end`,
            ham_count: sql`case when ham_count + ${ham} < 0 then 0 else ham_count + ${ham} end`,
            version,
          })
          .where('account_id', '=', accountId)
          .where('token', 'in', chunk)
          .execute();
      }
    }
  }
}

export async function upsertLessons(
  trx: Trx,
  rows: Array<{ submission_id: string; account_id: string; label: LessonLabel; created_at: string }>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto('spam_filter_lessons')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.column('submission_id').doUpdateSet({ label: sql`excluded.label`, created_at: sql`excluded.created_at` }))
      .execute();
  }
}

/**
 * What the filter learns from: each submission's account and payload. Read from the submissions
 * table directly (joined to its form for the account): the filter learns inside the marking
 * transaction, which cannot wait on another service's read outside it.
 */
export async function findSubmissionsToLearn(
  db: Executor,
  submissionIds: string[],
): Promise<Array<{ id: string; account_id: string; payload: string }>> {
  if (submissionIds.length === 0) return [];
  return db
    .selectFrom('submissions')
    .innerJoin('forms', 'forms.id', 'submissions.form_id')
    .select(['submissions.id as id', 'forms.account_id as account_id', 'submissions.payload as payload'])
    .where('submissions.id', 'in', submissionIds)
    .execute();
}
