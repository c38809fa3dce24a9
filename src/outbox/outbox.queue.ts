import type { Trx } from '../db/database.js';
import type { OutboxChannel } from './outbox.channel.js';
import {
  deleteOutboxRows,
  findFormsWithOutboundWork,
  insertOutboxRows,
  queueOutboundWork,
  queueOutboundWorkStatementSql,
  type FormHasWorkSql,
} from './outbox.repository.js';

/**
 * Writing and dropping queued outbound work inside the caller's transaction: one outbox row per
 * submission whose form has work for some channel, however many items the channels will make of
 * it. The dispatcher (outbox.dispatcher.ts) takes the rows off and wakes on the commit; callers
 * reach this through it, and tell it with queuedWorkCommitted() after their commit.
 */
export class OutboxQueue {
  /** SQL text per form id column: the form has work for some channel (each channel owns its part). */
  private readonly hasWorkSqlByColumn = new Map<string, string>();

  constructor(private readonly channels: readonly OutboxChannel[]) {}

  /**
   * Drops the queued rows of submissions about to be deleted, inside the deleting transaction and
   * before the submissions themselves: the row locks are then taken in the dispatcher's order
   * (outbox row, then submission), so a deletion waits for an expansion in progress instead of
   * deadlocking with it on PostgreSQL.
   */
  async dropQueuedWork(trx: Trx, submissionIds: string[]): Promise<void> {
    if (submissionIds.length > 0) await deleteOutboxRows(trx, submissionIds);
  }

  /**
   * THE way to queue a submission's outbound work (new submissions, and any later path that must
   * send one as if new): inside the caller's transaction, one outbox row per submission whose form
   * has work for some channel (OutboxChannel.formHasWorkSql); a submission already queued
   * is not queued twice. `releasedAt` (default: the submission's arrival) decides which hooks
   * receive it: those subscribed by then. Returns how many submissions were queued.
   */
  async queueInTransaction(trx: Trx, submissionIds: string[], options: { releasedAt?: string } = {}): Promise<number> {
    return queueOutboundWork(trx, submissionIds, { hasWork: this.formHasWorkSql, releasedAt: options.releasedAt });
  }

  /**
   * The same queueing for submissions inserted by the caller's transaction, whose forms the caller
   * knows: one query finds which of their forms have outbound work (usually none, or one form),
   * instead of a lookup per submission. Same result as queueInTransaction for new submissions.
   */
  async queueNewSubmissions(trx: Trx, submissions: Array<{ id: string; formId: string; createdAt: string }>): Promise<number> {
    if (submissions.length === 0) return 0;
    const forms = await findFormsWithOutboundWork(trx, [...new Set(submissions.map((s) => s.formId))], this.formHasWorkSql);
    if (forms.size === 0) return 0;
    return insertOutboxRows(trx, submissions.filter((s) => forms.has(s.formId)));
  }

  /**
   * The same queueing for a statement that inserts submissions and queues them at once
   * (PostgreSQL's one-statement submit batch): SQL over a relation of the inserted submissions.
   */
  readonly queueStatement = {
    queueSql: (source: string) => queueOutboundWorkStatementSql(source, this.formHasWorkSql),
  };

  /** Every channel's condition, or'ed; built once per column (it runs on every submit). */
  private readonly formHasWorkSql: FormHasWorkSql = (formIdColumn) => {
    let text = this.hasWorkSqlByColumn.get(formIdColumn);
    if (text === undefined) {
      // In parentheses as a whole: the callers AND it with other conditions, and `a and b or c`
      // is `(a and b) or c` (queueInTransaction queued every submission of a form with work for
      // the second channel, whichever submissions it was given).
      text = this.channels.length === 0 ? 'false' : `(${this.channels.map((channel) => `(${channel.formHasWorkSql(formIdColumn)})`).join(' or ')})`;
      this.hasWorkSqlByColumn.set(formIdColumn, text);
    }
    return text;
  };
}
