import type { Dialect, Trx } from '../../platform/db/database.js';
import { CONFIRMATION_ADDRESS_WINDOW_MS, type ConfirmationSkipReason } from './confirmation.js';
import {
  admitConfirmations,
  countAdmittedConfirmations,
  findAddressesAdmittedSince,
  findSuppressed,
  lockConfirmationGuards,
} from './confirmation.repository.js';
import type { ClaimedMessageRow } from './email.repository.js';

const byArrival = (a: ClaimedMessageRow, b: ClaimedMessageRow) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;

/**
 * The anti-relay guards of a confirmation (docs/email.md), checked when it is first claimed, in the claiming
 * transaction: the counts see every confirmation admitted before (SQLite serializes
 * transactions; PostgreSQL takes a per-form advisory lock), so the limits hold exactly however
 * many submissions arrive at once, and the submit path pays nothing. A claimed batch is checked
 * with a few queries per form, not a few per message: the batch's own admissions are counted as
 * they are made, in arrival order. Returns the refused ones with the reason each is skipped for
 * (the outbox records the skip, which the email log shows).
 */
export async function admitConfirmationsOf(trx: Trx, dialect: Dialect, claimed: ClaimedMessageRow[], now: string): Promise<Map<string, ConfirmationSkipReason>> {
  const refused = new Map<string, ConfirmationSkipReason>();
  const fresh = claimed.filter((r) => r.kind === 'confirmation' && r.admitted_at === null);
  if (fresh.length === 0) return refused;
  const formIds = [...new Set(fresh.map((r) => r.form_id!))];
  await lockConfirmationGuards(trx, dialect, formIds);
  const dayStart = `${now.slice(0, 10)}T00:00:00.000Z`;
  const hourAgo = new Date(Date.parse(now) - CONFIRMATION_ADDRESS_WINDOW_MS).toISOString();
  const suppressed = await findSuppressed(trx, [...new Set(fresh.map((r) => r.address_hash!))]);
  const admitted: string[] = [];
  for (const formId of formIds) {
    const ofForm = fresh.filter((r) => r.form_id === formId).sort(byArrival);
    const recent = await findAddressesAdmittedSince(trx, { formId, since: hourAgo, addressHashes: [...new Set(ofForm.map((r) => r.address_hash!))] });
    let today = await countAdmittedConfirmations(trx, { formId, since: dayStart });
    for (const row of ofForm) {
      let reason: ConfirmationSkipReason | undefined;
      if (suppressed.has(row.address_hash!)) reason = 'suppressed';
      else if (recent.has(row.address_hash!)) reason = 'rate_limited';
      else if (today >= (row.form_auto_reply_daily_limit ?? 0)) reason = 'daily_cap';
      if (reason) {
        refused.set(row.id, reason);
      } else {
        admitted.push(row.id);
        recent.add(row.address_hash!);
        today++;
      }
    }
  }
  await admitConfirmations(trx, admitted, now);
  return refused;
}
