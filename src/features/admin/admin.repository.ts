import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

export interface AccountOverviewRow {
  id: string;
  email: string;
  plan_id: string;
  /** 1: the account's owner is the instance admin. */
  owner_is_admin: number;
  disabled_at: string | null;
  created_at: string;
  forms: number;
  submissions: number;
}

/**
 * Every account with its owner (after a handover of ownership the account's own email column
 * names the previous one) and its number of forms and stored submissions (from the per-form
 * counters).
 */
export async function listAccountOverviewRows(db: Executor): Promise<AccountOverviewRow[]> {
  const rows = await db
    .selectFrom('accounts as a')
    .leftJoin('memberships as owner', (join) => join.onRef('owner.account_id', '=', 'a.id').on('owner.role', '=', 'owner'))
    .leftJoin('users as owner_user', 'owner_user.id', 'owner.user_id')
    .select((eb) => [
      'a.id',
      eb.fn.coalesce('owner_user.email', 'a.email').as('email'),
      eb.fn.coalesce('owner_user.is_admin', sql<number>`0`).as('owner_is_admin'),
      'a.plan_id',
      'a.disabled_at',
      'a.created_at',
    ])
    .select((eb) => [
      eb.selectFrom('forms').select(eb.fn.countAll().as('n')).whereRef('forms.account_id', '=', 'a.id').as('forms'),
      eb
        .selectFrom('form_counts')
        .innerJoin('forms', 'forms.id', 'form_counts.form_id')
        .select(sql<number>`coalesce(sum(form_counts.inbox + form_counts.spam), 0)`.as('n'))
        .whereRef('forms.account_id', '=', 'a.id')
        .as('submissions'),
    ])
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({ ...r, forms: Number(r.forms ?? 0), submissions: Number(r.submissions ?? 0) }));
}

export async function findInstanceSetting(db: Executor, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('instance_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

export async function upsertInstanceSetting(db: Executor, name: string, value: string, now: string): Promise<void> {
  await db
    .insertInto('instance_settings')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}
