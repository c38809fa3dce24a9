import type { Trx } from '../db/database.js';
import type { OutboxChannel, OutboxQueue, QueuedSubmission } from './outbox.channel.js';
import {
  deleteOutboxRows,
  findFormsWithOutboundWork,
  insertOutboxRows,
  queueOutboundWork,
  queueOutboundWorkStatementSql,
} from './outbox.repository.js';

/**
 * Writing and dropping queued outbound work inside the caller's transaction: one outbox row per
 * submission whose form has work for some channel, however many items the channels will make of
 * it. The dispatcher (outbox.dispatcher.ts) takes the rows off; `committed` is its wake-up.
 */
export class SubmissionQueue implements OutboxQueue {
  /** SQL text per form id column: the form has work for some channel (each channel owns its part). */
  private readonly hasWorkSqlByColumn = new Map<string, string>();

  constructor(
    private readonly channels: readonly OutboxChannel[],
    readonly committed: () => void,
  ) {}

  /**
   * Before the submissions themselves: the row locks are then taken in the dispatcher's order
   * (outbox row, then submission), so a deletion waits for an expansion in progress instead of
   * deadlocking with it on PostgreSQL.
   */
  async drop(trx: Trx, submissionIds: string[]): Promise<void> {
    if (submissionIds.length > 0) await deleteOutboxRows(trx, submissionIds);
  }

  async queue(trx: Trx, submissions: ReadonlyArray<string> | ReadonlyArray<QueuedSubmission>, options: { releasedAt?: string } = {}): Promise<number> {
    if (submissions.length === 0) return 0;
    if (isIdList(submissions)) return queueOutboundWork(trx, [...submissions], { hasWork: this.formHasWorkSql, releasedAt: options.releasedAt });
    // New submissions whose forms the caller knows: one query finds which of their forms have
    // work (usually none, or one form), instead of a lookup per submission.
    const forms = await findFormsWithOutboundWork(trx, [...new Set(submissions.map((s) => s.formId))], this.formHasWorkSql);
    if (forms.size === 0) return 0;
    return insertOutboxRows(trx, submissions.filter((s) => forms.has(s.formId)));
  }

  queueSql(source: string): string {
    return queueOutboundWorkStatementSql(source, this.formHasWorkSql);
  }

  /** Every channel's condition, or'ed; built once per column (it runs on every submit). */
  private readonly formHasWorkSql = (formIdColumn: string): string => {
    let text = this.hasWorkSqlByColumn.get(formIdColumn);
    if (text === undefined) {
      // In parentheses as a whole: the callers AND it with other conditions, and `a and b or c`
      // is `(a and b) or c`.
      text = this.channels.length === 0 ? 'false' : `(${this.channels.map((channel) => `(${channel.formHasWorkSql(formIdColumn)})`).join(' or ')})`;
      this.hasWorkSqlByColumn.set(formIdColumn, text);
    }
    return text;
  };
}

function isIdList(submissions: ReadonlyArray<string> | ReadonlyArray<QueuedSubmission>): submissions is ReadonlyArray<string> {
  return typeof submissions[0] === 'string';
}
