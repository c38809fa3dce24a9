import type { Executor } from '../db/database.js';
import { queueHookFanouts } from './delivery.repository.js';

/**
 * Releases submissions to everything that goes out for them (today the form's hooks), inside the
 * caller's transaction: the submit writer for new non-spam submissions, and marking a submission
 * "not spam". Every outbound channel is queued here, so a new one is added in one place. The
 * caller marks the rows `outbound_released` in the same transaction, which is what makes this
 * happen at most once per submission. Returns how many submissions had something to send.
 */
export async function queueSubmissionOutbound(
  trx: Executor,
  submissionIds: string[],
  options: { releasedAt?: string } = {},
): Promise<number> {
  return queueHookFanouts(trx, submissionIds, options.releasedAt);
}
