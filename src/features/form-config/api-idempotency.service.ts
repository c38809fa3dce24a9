import { setTimeout as delay } from 'node:timers/promises';
import type { Executor } from '../../platform/db/database.js';
import { AppError } from '../../platform/errors.js';
import { nowIso } from '../../platform/lib/time.js';
import {
  claimApiIdempotencyKey,
  completeApiIdempotencyRecord,
  deleteExpiredApiIdempotencyRecords,
  deletePendingApiIdempotencyRecord,
  findApiIdempotencyRecord,
} from './api-idempotency.repository.js';
import type { StoredAnswer } from './form-config.types.js';

/** How long a first answer is replayed (as on the submit endpoint). */
export const API_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a repeat waits for its first request to finish before it is told to come back. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 25;
/** A first request pending this long was cut off (its process stopped): a repeat takes its place. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

/** The key named another request: the client's mistake, named on the header. */
const reusedKey = (message: string) => new AppError('validation_failed', message, { fieldErrors: { 'Idempotency-Key': message } });
/** The first request still runs: the repeat may come back in a second and get its answer. */
const stillRunning = (message: string) => new AppError('rate_limited', message, { headers: { 'Retry-After': '1' } });

/**
 * Management API writes sent with an Idempotency-Key (docs/api.md, Writes): per API key, the first
 * successful answer is kept for 24 hours and replayed to a repeat of the same request; the same
 * key with another request is refused; a repeat arriving while the first runs waits for it.
 * Errors are not kept.
 */
export class ApiIdempotencyService {
  constructor(private readonly db: Executor) {}

  async run(apiKeyId: string, key: string | undefined, requestHash: string, write: () => Promise<StoredAnswer>): Promise<StoredAnswer & { replayed: boolean }> {
    if (key === undefined) return { ...(await write()), replayed: false };
    const waitUntil = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const expiredBefore = new Date(Date.now() - API_IDEMPOTENCY_TTL_MS).toISOString();
      const abandonedBefore = new Date(Date.now() - ABANDONED_AFTER_MS).toISOString();
      if (await claimApiIdempotencyKey(this.db, { apiKeyId, key, requestHash, createdAt: nowIso() }, expiredBefore, abandonedBefore)) {
        let answer: StoredAnswer;
        try {
          answer = await write();
        } catch (err) {
          await deletePendingApiIdempotencyRecord(this.db, apiKeyId, key);
          throw err;
        }
        await completeApiIdempotencyRecord(this.db, apiKeyId, key, answer);
        return { ...answer, replayed: false };
      }
      const record = await findApiIdempotencyRecord(this.db, apiKeyId, key);
      // Gone between the claim and the read: the first request failed; this one may go.
      if (!record) continue;
      if (record.requestHash !== requestHash) throw reusedKey('This Idempotency-Key was sent with another request: use a new key for a new request.');
      if (record.answer) return { ...record.answer, replayed: true };
      if (Date.now() > waitUntil) throw stillRunning('The first request with this Idempotency-Key is still running: send it again later.');
      await delay(POLL_MS);
    }
  }

  async purgeExpired(): Promise<number> {
    return deleteExpiredApiIdempotencyRecords(this.db, new Date(Date.now() - API_IDEMPOTENCY_TTL_MS).toISOString());
  }
}
