import { sql } from 'kysely';
import type { Executor, Trx } from '../../platform/db/database.js';
import type { LeasedItems, OutboxItem } from '../outbox/outbox.types.js';
import type { IntegrationRow, IntegrationRowUpdate } from '../../platform/db/schema.js';
import type { Integration, IntegrationKind } from './integration.types.js';

export function integrationRowToIntegration(row: IntegrationRow): Integration {
  return {
    id: row.id,
    formId: row.form_id,
    kind: row.kind as IntegrationKind,
    name: row.name,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    url: row.url === null ? null : 'set',
    token: row.token === null ? null : 'set',
    chatId: row.chat_id,
    settings: parseJsonObject(row.settings),
    secrets: Object.fromEntries(Object.keys(parseJsonObject(row.secrets)).map((name) => [name, 'set' as const])),
    revision: Number(row.revision ?? 0),
  };
}

/** A stored JSON object of settings; {} when there is none. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export async function insertIntegration(db: Executor, row: IntegrationRow): Promise<void> {
  await db.insertInto('integrations').values(row).execute();
}

export async function countIntegrationsOfForm(db: Executor, formId: string): Promise<number> {
  const row = await db
    .selectFrom('integrations')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('form_id', '=', formId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listIntegrationRowsOfForm(db: Executor, formId: string): Promise<IntegrationRow[]> {
  return db.selectFrom('integrations').selectAll().where('form_id', '=', formId).orderBy('created_at').orderBy('id').execute();
}

export async function findIntegrationRow(db: Executor, id: string): Promise<IntegrationRow | undefined> {
  return db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The forms among `formIds` with at least one disabled integration (the forms list's warning). */
export async function findFormsWithDisabledIntegrations(db: Executor, formIds: string[]): Promise<Set<string>> {
  if (formIds.length === 0) return new Set();
  const rows = await db.selectFrom('integrations').select('form_id').distinct().where('form_id', 'in', formIds).where('enabled', '=', 0).execute();
  return new Set(rows.map((r) => r.form_id));
}

/** Deletes an integration; its messages and their attempts go with it (migration 0029's trigger removes the attempts). */
export async function deleteIntegrationRow(trx: Trx, id: string): Promise<boolean> {
  await trx.deleteFrom('integration_messages').where('integration_id', '=', id).execute();
  const result = await trx.deleteFrom('integrations').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Turns an integration off when it is on; false when it was off already (another refusal came first). */
export async function turnOffIntegration(db: Executor, id: string, reason: string): Promise<boolean> {
  const result = await db.updateTable('integrations').set({ enabled: 0, disabled_reason: reason }).where('id', '=', id).where('enabled', '=', 1).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Changes an integration and counts its revision up; with `expectedRevision`, only while it is
 * still at that revision (false when another write came first).
 */
export async function updateIntegrationRow(db: Executor, id: string, changes: IntegrationRowUpdate, expectedRevision?: number): Promise<boolean> {
  let query = db
    .updateTable('integrations')
    .set((eb) => ({ ...changes, revision: eb('revision', '+', 1) }))
    .where('id', '=', id);
  if (expectedRevision !== undefined) query = query.where('revision', '=', expectedRevision);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setIntegrationEnabled(db: Executor, id: string, enabled: boolean, reason: string | null): Promise<void> {
  await db.updateTable('integrations').set({ enabled: enabled ? 1 : 0, disabled_reason: enabled ? null : reason }).where('id', '=', id).execute();
}

/** The IDs the integration's attempts are logged under: its messages', and its own for test messages. */
export function attemptItemsOfIntegration(db: Executor, integrationId: string) {
  return db
    .selectFrom('integration_messages')
    .select('id')
    .where('integration_id', '=', integrationId)
    .unionAll(db.selectNoFrom(sql<string>`${integrationId}`.as('id')));
}

/** SQL over `formIdColumn`: the form has an enabled integration (outbound work for this channel). */
export const formHasEnabledIntegrationSql = (formIdColumn: string) =>
  `exists (select 1 from integrations where integrations.form_id = ${formIdColumn} and integrations.enabled = 1)`;

/**
 * SQL over a message of `table` (by the table's name) that may be leased now: one of a kind that
 * sends in order (a position) waits while an earlier message of its integration is queued or one
 * is being sent. The lease takes a message at a time per integration, so two dispatchers never
 * send two of one integration at once.
 */
export const messageLeasableSql = (table: string) =>
  `${table}.position is null or not exists (select 1 from integration_messages earlier
    where earlier.integration_id = ${table}.integration_id and earlier.position is not null and earlier.id <> ${table}.id
    and (earlier.state = 'sending' or (earlier.state = 'pending' and earlier.position < ${table}.position)))`;

/**
 * One message per enabled integration of each queued submission's form that existed when the
 * submission was released (the outbox row's time), inside the dispatcher's expanding transaction.
 * A submission released again (not spam after spam) finds its messages already there: once.
 */
export async function insertMessagesForQueued(trx: Trx, submissionIds: string[], now: string, sequentialKinds: readonly string[] = []): Promise<number> {
  if (submissionIds.length === 0) return 0;
  // A kind that sends in order keeps the order of arrival: the submission's time, then its ID (as the dashboard lists them).
  const position =
    sequentialKinds.length === 0
      ? sql<string | null>`null`
      : sql<string | null>`case when i.kind in (${sql.join([...sequentialKinds])}) then s.created_at || ' ' || s.id else null end`;
  const result = await trx
    .insertInto('integration_messages')
    .columns(['id', 'integration_id', 'submission_id', 'state', 'attempts', 'next_attempt_at', 'created_at', 'position'])
    .expression(
      trx
        .selectFrom('outbox as o')
        .innerJoin('submissions as s', 's.id', 'o.submission_id')
        .innerJoin('integrations as i', 'i.form_id', 's.form_id')
        .select([
          sql<string>`'im.' || i.id || '.' || s.id`.as('id'),
          'i.id as integration_id',
          's.id as submission_id',
          sql<string>`'pending'`.as('state'),
          sql<number>`0`.as('attempts'),
          sql<string>`${now}`.as('next_attempt_at'),
          sql<string>`${now}`.as('created_at'),
          position.as('position'),
        ])
        .where('o.submission_id', 'in', submissionIds)
        .where('i.enabled', '=', 1)
        .whereRef('i.created_at', '<=', 'o.created_at'),
    )
    .onConflict((oc) => oc.columns(['integration_id', 'submission_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** What a test message of an integration needs: its target and its form. */
export async function findIntegrationTestTarget(db: Executor, id: string) {
  const row = await db
    .selectFrom('integrations as i')
    .innerJoin('forms as f', 'f.id', 'i.form_id')
    .select(['i.kind', 'i.url', 'i.token', 'i.chat_id', 'i.settings', 'i.secrets', 'i.form_id', 'f.name'])
    .where('i.id', '=', id)
    .executeTakeFirst();
  return (
    row && {
      kind: row.kind,
      url: row.url,
      token: row.token,
      chatId: row.chat_id,
      settings: parseJsonObject(row.settings),
      secrets: parseJsonObject(row.secrets),
      formId: row.form_id,
      formName: row.name,
    }
  );
}

/** A claimed message with what formatting and sending it needs. */
export interface ClaimedIntegrationMessage extends OutboxItem {
  id: string;
  integration_id: string;
  submission_id: string;
  attempts: number;
  kind: string;
  url: string | null;
  token: string | null;
  chat_id: string | null;
  settings: string | null;
  secrets: string | null;
  enabled: number;
  disabled_reason: string | null;
  integration_name: string;
  form_id: string;
  form_name: string;
  account_id: string;
  s_created_at: string;
  s_country: string;
  s_payload: string;
}

/** What formatting and sending the messages being leased to this instance needs (in the lease's transaction). */
export async function loadLeasedMessages(leased: LeasedItems): Promise<ClaimedIntegrationMessage[]> {
  return leased
    .selectFrom('integration_messages as m')
    .innerJoin('integrations as i', 'i.id', 'm.integration_id')
    .innerJoin('submissions as s', 's.id', 'm.submission_id')
    .innerJoin('forms as f', 'f.id', 'i.form_id')
    .select([
      'm.id',
      'm.integration_id',
      'm.submission_id',
      'm.attempts',
      'i.kind',
      'i.url',
      'i.token',
      'i.chat_id',
      'i.settings',
      'i.secrets',
      'i.enabled',
      'i.disabled_reason',
      'i.name as integration_name',
      'i.form_id',
      'f.name as form_name',
      'f.account_id',
      's.created_at as s_created_at',
      's.country as s_country',
      's.payload as s_payload',
    ])
    .where('m.id', 'in', (eb) => eb.selectFrom('leased').select('leased.id'))
    .orderBy('m.next_attempt_at')
    .orderBy('m.id')
    .execute();
}

/** A submission's integration messages, for the owner of `accountId` only. */
export async function listMessageRowsOfSubmission(db: Executor, accountId: string, submissionId: string) {
  return db
    .selectFrom('integration_messages as m')
    .innerJoin('integrations as i', 'i.id', 'm.integration_id')
    .innerJoin('forms as f', 'f.id', 'i.form_id')
    .select(['m.id', 'm.state', 'm.attempts', 'm.created_at', 'm.next_attempt_at', 'i.kind', 'i.name'])
    .where('m.submission_id', '=', submissionId)
    .where('f.account_id', '=', accountId)
    .orderBy('m.created_at')
    .orderBy('m.id')
    .execute();
}

/** The message, if its integration's form is the account's. */
export async function findMessageIdOfAccount(db: Executor, accountId: string, messageId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('integration_messages as m')
    .innerJoin('integrations as i', 'i.id', 'm.integration_id')
    .innerJoin('forms as f', 'f.id', 'i.form_id')
    .select('m.id')
    .where('m.id', '=', messageId)
    .where('f.account_id', '=', accountId)
    .executeTakeFirst();
  return row?.id;
}
