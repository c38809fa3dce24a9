import type { Executor } from '../../platform/db/database.js';

/** Keeps the learning filter's score of a submission it filed as spam. */
export async function setSubmissionSpamScore(db: Executor, submissionId: string, score: number): Promise<void> {
  await db.updateTable('submissions').set({ spam_score: score }).where('id', '=', submissionId).execute();
}
