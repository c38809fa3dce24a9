import { CompiledQuery, sql } from 'kysely';
import type { Executor, Trx } from '../db/database.js';

/** One send's attempt, and the state its message takes with it. */
export interface AttemptWrite {
  attempt: { id: string; messageId: string; attemptedAt: string; outcome: string; reply: string };
  message: { state: string; attempts: number; nextAttemptAt: string };
}

/**
 * Records one attempt on a claimed message. False when the message is gone: it was deleted with
 * its submission (or form) while it was being sent, and there is nothing left to record against.
 */
export async function recordAttempt(
  trx: Trx,
  attempt: AttemptWrite['attempt'],
  message: AttemptWrite['message'],
): Promise<boolean> {
  const updated = await trx
    .updateTable('email_messages')
    .set({ state: message.state, attempts: message.attempts, next_attempt_at: message.nextAttemptAt, claimed_at: null, claimed_by: null })
    .where('id', '=', attempt.messageId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await trx
    .insertInto('email_attempts')
    .values({ id: attempt.id, message_id: attempt.messageId, attempted_at: attempt.attemptedAt, outcome: attempt.outcome, reply: attempt.reply })
    .execute();
  return true;
}

/**
 * PostgreSQL: several attempts in one statement (messages updated, attempt rows inserted),
 * skipping message rows another transaction holds; returns the message IDs it recorded (the
 * `together` of writeSkippingLocked).
 */
export async function recordAttemptsUnlessLocked(
  db: Executor,
  records: AttemptWrite[],
): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const ids = records.map((r) => r.attempt.messageId);
  const { rows } = await sql<{ message_id: string }>`
    with updated as (
      update email_messages m
      set state = v.state, attempts = v.attempts, next_attempt_at = v.next_attempt_at, claimed_at = null, claimed_by = null
      from unnest(${ids}::text[], ${records.map((r) => r.message.state)}::text[], ${records.map((r) => r.message.attempts)}::int[],
        ${records.map((r) => r.message.nextAttemptAt)}::text[]) as v(id, state, attempts, next_attempt_at)
      where m.id = v.id and m.id in (select id from email_messages where id = any(${ids}::text[]) for update skip locked)
      returning m.id
    )
    insert into email_attempts (id, message_id, attempted_at, outcome, reply)
    select a.id, a.message_id, a.attempted_at, a.outcome, a.reply
    from unnest(${records.map((r) => r.attempt.id)}::text[], ${ids}::text[], ${records.map((r) => r.attempt.attemptedAt)}::text[],
      ${records.map((r) => r.attempt.outcome)}::text[], ${records.map((r) => r.attempt.reply)}::text[]) as a(id, message_id, attempted_at, outcome, reply)
    inner join updated on updated.id = a.message_id
    returning message_id`.execute(db);
  return new Set(rows.map((row) => row.message_id));
}

/**
 * SQLite: several attempts in two statements of fixed text (one JSON parameter each, so no query
 * is built per group and one prepared statement serves every group size). An attempt on a
 * message deleted meanwhile (with its submission or form) is not recorded, as in recordAttempt.
 */
export async function recordAttemptsTogether(trx: Trx, records: AttemptWrite[]): Promise<void> {
  if (records.length === 0) return;
  const messages = JSON.stringify(records.map(({ attempt, message }) => [attempt.messageId, message.state, message.attempts, message.nextAttemptAt]));
  await trx.executeQuery(CompiledQuery.raw(SQLITE_UPDATE_ATTEMPTED_MESSAGES, [messages]));
  const attempts = JSON.stringify(records.map(({ attempt: a }) => [a.id, a.messageId, a.attemptedAt, a.outcome, a.reply]));
  await trx.executeQuery(CompiledQuery.raw(SQLITE_INSERT_ATTEMPTS, [attempts]));
}

const SQLITE_UPDATE_ATTEMPTED_MESSAGES = `update email_messages
  set state = v.value ->> 1, attempts = v.value ->> 2, next_attempt_at = v.value ->> 3, claimed_at = null, claimed_by = null
  from json_each(?) as v
  where email_messages.id = v.value ->> 0`;

const SQLITE_INSERT_ATTEMPTS = `insert into email_attempts (id, message_id, attempted_at, outcome, reply)
  select v.value ->> 0, v.value ->> 1, v.value ->> 2, v.value ->> 3, v.value ->> 4
  from json_each(?) as v
  where exists (select 1 from email_messages m where m.id = v.value ->> 1)`;
