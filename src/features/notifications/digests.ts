import type { Executor } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import { countDigestSubmissions, findExistingMessageIds, insertMessageRows, listDigestRecipients } from './email.repository.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Queues the digest of the last complete period (UTC hour or day) for every recipient of a form
 * in hourly or daily mode that had non-spam submissions in it; once per period (the message ID
 * names it). A recipient not confirmed yet gets it held, sent once the address is confirmed.
 * Returns how many were queued to send now.
 */
export async function queueDueDigests(db: Executor, now = new Date()): Promise<number> {
  const targets = await listDigestRecipients(db);
  // The period comes from `now`; the message is due at once, whatever clock `now` was read from.
  const queuedAt = nowIso();
  let queued = 0;
  const counts = new Map<string, number>();
  for (const t of targets) {
    const span = t.mode === 'hourly' ? HOUR_MS : DAY_MS;
    const end = Math.floor(now.getTime() / span) * span;
    const period = { start: new Date(end - span).toISOString(), end: new Date(end).toISOString() };
    const id = `dg.${t.formId}.${period.start}.${t.recipientId}`;
    if ((await findExistingMessageIds(db, [id])).size > 0) continue;
    const key = `${t.formId}.${period.start}.${span}`;
    if (!counts.has(key)) counts.set(key, await countDigestSubmissions(db, t.formId, period.start, period.end));
    if (counts.get(key) === 0) continue;
    const inserted = await insertMessageRows(db, [
      {
        id,
        kind: 'digest',
        form_id: t.formId,
        submission_id: null,
        recipient_id: t.recipientId,
        to_address: t.address,
        period_start: period.start,
        period_end: period.end,
        content: null,
        // Held for an address not confirmed yet: sent once it is.
        state: t.verified ? 'pending' : 'held',
        attempts: 0,
        next_attempt_at: queuedAt,
        created_at: queuedAt,
      },
    ]);
    if (t.verified) queued += inserted;
  }
  return queued;
}
