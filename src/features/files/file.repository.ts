import { sql } from 'kysely';
import type { Dialect, Executor, Trx } from '../../platform/db/database.js';
import type { FileRow, NewFileRow } from '../../platform/db/schema.js';

export async function insertFileRow(db: Executor, row: NewFileRow): Promise<void> {
  await db.insertInto('files').values(row).execute();
}

/** Advisory-lock class of the per-account file quota on PostgreSQL ("File"). */
const QUOTA_LOCK_CLASS = 0x46696c65;

/**
 * PostgreSQL: serializes the quota reservations of one account across instances until the
 * transaction ends, so two uploads cannot both count the same free bytes. SQLite transactions
 * are already serialized (they begin IMMEDIATE).
 */
export async function lockFileQuotaOfAccount(trx: Trx, dialect: Dialect, accountId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${QUOTA_LOCK_CLASS}, hashtext(${accountId}))`.execute(trx);
}

/** Adds bytes to what an upload in progress holds of its account's quota. */
export async function growFileRow(trx: Trx, id: string, bytes: number): Promise<void> {
  await trx
    .updateTable('files')
    .set((eb) => ({ size: eb('size', '+', bytes) }))
    .where('id', '=', id)
    .execute();
}

/** Sets a file's size, down to its real one once complete (what it held beyond is free again). */
export async function setFileRowSize(db: Executor, id: string, size: number): Promise<void> {
  await db.updateTable('files').set({ size }).where('id', '=', id).execute();
}

export async function findFileRowById(db: Executor, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A committed file: its submission exists (an upload in progress, or one whose submission is gone, is not). */
export async function findCommittedFileRow(db: Executor, id: string): Promise<(FileRow & { is_spam: number }) | undefined> {
  return db
    .selectFrom('files')
    .innerJoin('submissions', 'submissions.id', 'files.submission_id')
    .selectAll('files')
    .select('submissions.is_spam')
    .where('files.id', '=', id)
    .executeTakeFirst();
}

/** Sets what the upload learned (size, type, scan) and the submission the files now belong to. */
export async function attachFileRow(
  db: Executor,
  id: string,
  changes: { submissionId: string; size: number; type: string; scanState: string },
): Promise<void> {
  await db
    .updateTable('files')
    .set({ submission_id: changes.submissionId, size: changes.size, type: changes.type, scan_state: changes.scanState })
    .where('id', '=', id)
    .execute();
}

export async function deleteFileRows(db: Executor, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('files').where('id', 'in', ids).execute();
}

/** Bytes all of an account's files hold, with what uploads in progress reserved. */
export async function sumFileBytesOfAccount(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select(sql<string | number | null>`sum(size)`.as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * Files whose submission does not exist: uploads abandoned by a crash (no submission named, or
 * one never written), and files of deleted submissions whose content a crash kept from being
 * removed. Only rows older than `before`: a younger one may be an upload still in progress.
 */
export async function findDetachedFileRows(db: Executor, before: string, limit: number): Promise<FileRow[]> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('created_at', '<', before)
    .where((eb) =>
      eb.or([
        eb('submission_id', 'is', null),
        eb.not(eb.exists(eb.selectFrom('submissions').select('submissions.id').whereRef('submissions.id', '=', 'files.submission_id'))),
      ]),
    )
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** Files of these (deleted) submissions. */
export async function findFileRowsBySubmissionIds(db: Executor, submissionIds: string[]): Promise<FileRow[]> {
  if (submissionIds.length === 0) return [];
  return db.selectFrom('files').selectAll().where('submission_id', 'in', submissionIds).execute();
}

/** Every file of a (deleted) form. */
export async function findFileRowsOfForm(db: Executor, formId: string): Promise<FileRow[]> {
  return db.selectFrom('files').selectAll().where('form_id', '=', formId).execute();
}

/** Committed files clamd has not scanned, in ID order after `afterId` (a page at a time). */
export async function findUnscannedFileRows(db: Executor, afterId: string, limit: number): Promise<FileRow[]> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('scan_state', '=', 'unscanned')
    .where('submission_id', 'is not', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function setFileScanState(db: Executor, id: string, scanState: string): Promise<void> {
  await db.updateTable('files').set({ scan_state: scanState }).where('id', '=', id).execute();
}

/** Up to `limit` file rows after `afterId` in ID order (every file the copy walks, page by page). */
export async function listFileRowsAfter(db: Executor, afterId: string, limit: number): Promise<Array<Pick<FileRow, 'id' | 'storage_key'>>> {
  return db.selectFrom('files').select(['id', 'storage_key']).where('id', '>', afterId).orderBy('id').limit(limit).execute();
}
