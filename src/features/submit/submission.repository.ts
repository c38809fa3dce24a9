import { createHash } from 'node:crypto';
import { CompiledQuery, SqliteAdapter } from 'kysely';
import type pg from 'pg';
import type { Executor, Trx } from '../../platform/db/database.js';
import type { IdempotencyKeyRow, NewSubmissionRow } from '../../platform/db/schema.js';
import type { OutboxQueue } from '../outbox/outbox.types.js';

// Keeps each multi-row INSERT well under SQLite's and PostgreSQL's bind-parameter limits.
const ROWS_PER_INSERT = 200;

/**
 * Inserts submission rows (in the caller's transaction) and adds them to the per-form and
 * per-hour counters, one upsert per form and hour (migrations 0007, 0013, 0015). The rows' forms
 * must exist: on PostgreSQL no foreign key checks it (migration 0015), so only callers that
 * know their forms use this (PostgreSQL's submit path is storeSubmissionBatchInOneStatement).
 */
export async function insertSubmissionRows(trx: Trx, rows: NewSubmissionRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sqlite = trx.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await insertSqliteSubmissionRows(trx, rows);
  else {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      await trx.insertInto('submissions').values(rows.slice(i, i + ROWS_PER_INSERT)).execute();
    }
  }
  await addToFormCounters(trx, rows, sqlite ? SQLITE_COUNTER_UPSERTS : POSTGRES_COUNTER_UPSERTS);
}

const SUBMISSION_COLUMNS = 'id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer, spam_reason, outbound_released, language';
const submissionValues = (row: NewSubmissionRow): unknown[] => [
  row.id, row.form_id, row.created_at, row.status, row.is_spam, row.payload, row.ip, row.country, row.user_agent, row.referer,
  row.spam_reason ?? null, row.outbound_released ?? 0, row.language ?? null,
];
const sqliteInsertTexts = new Map<number, string>();

/**
 * SQLite, on the submit path: the query builder's compile of a multi-row insert cost more than
 * SQLite's own insert of the rows (~6 µs a submission, profiled). Rows go in chunks of 2^k
 * (at most 128: 1,664 parameters), so eight fixed texts, each prepared once and kept by the
 * statement cache, serve every batch size.
 */
async function insertSqliteSubmissionRows(trx: Trx, rows: NewSubmissionRow[]): Promise<void> {
  let offset = 0;
  for (let size = 128; size >= 1; size >>= 1) {
    for (; rows.length - offset >= size; offset += size) {
      let text = sqliteInsertTexts.get(size);
      if (!text) sqliteInsertTexts.set(size, (text = `insert into submissions (${SUBMISSION_COLUMNS}) values ${Array(size).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`));
      await trx.executeQuery(CompiledQuery.raw(text, rows.slice(offset, offset + size).flatMap(submissionValues)));
    }
  }
}

const counterUpserts = (p: (n: number) => string) => ({
  hourly: `insert into form_hourly_counts (form_id, hour, shard, inbox, spam) values (${p(1)}, ${p(2)}, 0, ${p(3)}, ${p(4)})
  on conflict (form_id, hour, shard) do update set inbox = form_hourly_counts.inbox + excluded.inbox, spam = form_hourly_counts.spam + excluded.spam`,
  total: `insert into form_counts (form_id, shard, inbox, spam) values (${p(1)}, 0, ${p(2)}, ${p(3)})
  on conflict (form_id, shard) do update set inbox = form_counts.inbox + excluded.inbox, spam = form_counts.spam + excluded.spam`,
});
const SQLITE_COUNTER_UPSERTS = counterUpserts(() => '?');
const POSTGRES_COUNTER_UPSERTS = counterUpserts((n) => `$${n}`);

/** The new rows added to the dashboard's counters, one upsert per form and UTC hour (a batch usually has one of each). */
async function addToFormCounters(trx: Trx, rows: NewSubmissionRow[], upserts: ReturnType<typeof counterUpserts>): Promise<void> {
  const hours = new Map<string, { formId: string; hour: string; inbox: number; spam: number }>();
  const forms = new Map<string, { inbox: number; spam: number }>();
  for (const row of rows) {
    const hour = row.created_at.slice(0, 13);
    const hourKey = `${row.form_id} ${hour}`;
    let hourly = hours.get(hourKey);
    if (!hourly) hours.set(hourKey, (hourly = { formId: row.form_id, hour, inbox: 0, spam: 0 }));
    let total = forms.get(row.form_id);
    if (!total) forms.set(row.form_id, (total = { inbox: 0, spam: 0 }));
    const counter = row.is_spam ? 'spam' : 'inbox';
    hourly[counter]++;
    total[counter]++;
  }
  for (const { formId, hour, inbox, spam } of hours.values()) {
    await trx.executeQuery(CompiledQuery.raw(upserts.hourly, [formId, hour, inbox, spam]));
  }
  for (const [formId, { inbox, spam }] of forms) {
    await trx.executeQuery(CompiledQuery.raw(upserts.total, [formId, inbox, spam]));
  }
}

interface IdempotencyRecordInput {
  formId: string;
  key: string;
  submissionId: string;
  result: string;
  createdAt: string;
}

/**
 * Claims an idempotency key inside the submit transaction. A record older than `expiredBefore`
 * is taken over; a live one wins and nothing is written (false). On PostgreSQL a concurrent
 * claim of the same key in another transaction blocks here until that one commits or rolls back,
 * so two instances never both succeed.
 */
export async function claimIdempotencyKey(
  trx: Trx,
  record: IdempotencyRecordInput,
  expiredBefore: string,
): Promise<boolean> {
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values({
      form_id: record.formId,
      idempotency_key: record.key,
      submission_id: record.submissionId,
      result: record.result,
      created_at: record.createdAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['form_id', 'idempotency_key'])
        .doUpdateSet({
          submission_id: record.submissionId,
          result: record.result,
          created_at: record.createdAt,
        })
        .where('idempotency_keys.created_at', '<', expiredBefore),
    )
    .returning('submission_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function findLiveIdempotencyRecord(
  db: Executor,
  formId: string,
  key: string,
  expiredBefore: string,
): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('form_id', '=', formId)
    .where('idempotency_key', '=', key)
    .where('created_at', '>=', expiredBefore)
    .executeTakeFirst();
}

export async function deleteExpiredIdempotencyRecords(db: Executor, expiredBefore: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One submission of a group-commit batch: its row, its idempotency claim, whether to queue it. */
export interface BatchedSubmission {
  row: NewSubmissionRow;
  /** Present when the request carried an Idempotency-Key. */
  idempotency?: IdempotencyRecordInput | undefined;
  /** Non-spam submissions are sent to the form's hooks and email recipients. */
  queueOutbound: boolean;
}

/**
 * PostgreSQL's submit batch as ONE autocommitted statement: the forms' locks, the idempotency
 * claims, the submission rows, their counts and their outbox rows are CTEs over the batch passed
 * as one JSON array. One round trip instead of five (BEGIN, claims, insert, outbox, COMMIT); as
 * a named prepared statement its text is parsed and planned once per connection whatever the
 * batch size. The statement is atomic like the transaction it replaces; a claim blocked by
 * another instance's uncommitted claim of the same key waits for it as before. Keys repeated
 * within the batch must be removed by the caller (a statement cannot update one row twice).
 *
 * Each form of the batch is locked `for key share` once, as a foreign key would lock it for each
 * row (migration 0015), and a row whose form is gone (deleted since the form cache read it) is
 * not stored: its form's id is returned in `missingFormIds`. The counters are added to in `counterShard`
 * (0–7): batches written at once use different shards, so neither waits for the other's commit.
 *
 * Returns the ids whose claim won (submissions without a key are stored unless their form is
 * missing), the missing forms, and how many were queued. Sent with pool.query, which destroys a
 * connection whose query failed instead of reusing it (as the query builder's pool wrapper
 * does), so a broken backend never takes the next batch.
 */
export async function storeSubmissionBatchInOneStatement(
  pool: pg.Pool,
  batch: BatchedSubmission[],
  options: { expiredBefore: string; outbox: OutboxStatement; counterShard: number },
): Promise<{ claimedIds: Set<string>; missingFormIds: Set<string>; queued: number }> {
  // One JSON text for the whole batch: JSON.stringify is native, where sixteen array
  // parameters would go through the driver's per-element escaping (~9 µs a submission more).
  // Each row is one object literal of one shape with short keys, and what is absent is left out
  // (undefined is not serialized; the statement fills the defaults): a spread copy of the row
  // with sixteen column names costs ~7 µs a submission (docs/performance.md#the-one-statement-batch).
  const input = JSON.stringify(batch.map(batchInputOf));
  const statement = submitBatchStatement(options.outbox);
  const result = await pool.query<{ claimed: string[]; missing_forms: string[]; queued: number }>({
    ...statement,
    values: [input, options.expiredBefore, options.counterShard],
  });
  const { claimed, missing_forms: missingForms, queued } = result.rows[0]!;
  return { claimedIds: new Set(claimed), missingFormIds: new Set(missingForms), queued };
}

/** What the outbox adds to the statement: a data-modifying statement queueing a relation's submissions. */
type OutboxStatement = Pick<OutboxQueue, 'queueSql'>;

const submitBatchStatements = new WeakMap<OutboxStatement, { name: string; text: string }>();

/** The statement's text, and a name that changes with it (prepared statements are named per connection). */
function submitBatchStatement(outbox: OutboxStatement): { name: string; text: string } {
  let statement = submitBatchStatements.get(outbox);
  if (!statement) {
    const text = submitBatchSql(outbox);
    statement = { name: `formgate_submit_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text };
    submitBatchStatements.set(outbox, statement);
  }
  return statement;
}

/** One row of the statement's input: the keys are the column list of `input` in submitBatchSql. */
function batchInputOf({ row, idempotency, queueOutbound }: BatchedSubmission) {
  return {
    id: row.id,
    form: row.form_id,
    created: row.created_at,
    status: row.status,
    spam: row.is_spam,
    payload: row.payload,
    ip: row.ip,
    country: row.country,
    ua: row.user_agent,
    referer: row.referer,
    reason: row.spam_reason ?? undefined,
    released: row.outbound_released || undefined,
    lang: row.language ?? undefined,
    key: idempotency?.key,
    key_result: idempotency?.result,
    key_at: idempotency?.createdAt,
    queue: queueOutbound || undefined,
  };
}

function submitBatchSql(outbox: OutboxStatement): string {
  return `with input as (
    select id, form as form_id, created as created_at, status, spam as is_spam, payload, ip, country, ua as user_agent, referer,
      reason as spam_reason, coalesce(released, 0) as outbound_released, lang as language, key as idempotency_key,
      key_result as idempotency_result, key_at as idempotency_created_at, coalesce(queue, false) as queue_outbound
    from json_to_recordset($1::json)
      as t(id text, form text, created text, status text, spam int, payload text, ip text, country text, ua text,
        referer text, reason text, released int, lang text, key text, key_result text, key_at text, queue bool)
  ), locked_forms as (
    select f.id from forms f where f.id in (select form_id from input) for key share
  ), claimed as (
    insert into idempotency_keys as k (form_id, idempotency_key, submission_id, result, created_at)
    select form_id, idempotency_key, id, idempotency_result, idempotency_created_at from input
    where idempotency_key is not null and form_id in (select id from locked_forms)
    on conflict (form_id, idempotency_key) do update
      set submission_id = excluded.submission_id, result = excluded.result, created_at = excluded.created_at
      where k.created_at < $2
    returning submission_id
  ), stored as (
    insert into submissions (id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer, spam_reason, outbound_released, language)
    select id, form_id, created_at, status, is_spam, payload, ip, country, user_agent, referer, spam_reason, outbound_released, language
    from input where form_id in (select id from locked_forms) and (idempotency_key is null or id in (select submission_id from claimed))
    returning id, form_id, created_at, is_spam
  ), hourly_counted as (
    insert into form_hourly_counts as c (form_id, hour, shard, inbox, spam)
    select form_id, substr(created_at, 1, 13), $3::int, sum(1 - is_spam), sum(is_spam) from stored
    group by form_id, substr(created_at, 1, 13) order by form_id, substr(created_at, 1, 13)
    on conflict (form_id, hour, shard) do update set inbox = c.inbox + excluded.inbox, spam = c.spam + excluded.spam
    returning form_id
  ), form_counted as (
    -- After hourly_counted (it reads its rows): the hourly row, then the form's, the order the
    -- delete and spam-change triggers lock them in. Taken the other way round, a submission
    -- and a deletion can deadlock.
    insert into form_counts as c (form_id, shard, inbox, spam)
    select form_id, $3::int, sum(1 - is_spam), sum(is_spam) from stored where form_id in (select form_id from hourly_counted)
    group by form_id order by form_id
    on conflict (form_id, shard) do update set inbox = c.inbox + excluded.inbox, spam = c.spam + excluded.spam
  ), released as (
    select s.id, s.form_id, s.created_at from stored s inner join input i on i.id = s.id where i.queue_outbound
  ), queued as (
    ${outbox.queueSql('released')}
  )
  select array(select submission_id from claimed) as claimed, (select count(*) from queued)::int as queued,
    array(select distinct form_id from input where form_id not in (select id from locked_forms)) as missing_forms`;
}
