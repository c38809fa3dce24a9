import type { QueryCreator } from 'kysely';
import type { Trx } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';

// What the outbox shows the rest of the code: the interface a channel implements (OutboxChannel,
// with its retry policy), the queue the submit path writes to (OutboxQueue), and the shapes of
// the one attempt log and of the message log built from it.

/** The tables whose rows the outbox leases: every channel's items. */
export type LeasedTable = string;

/**
 * Queries that start from the items just leased to this instance: `leased` holds their IDs (on
 * PostgreSQL it is the lease itself, as a CTE of the query: leaseDueItems in outbox.repository.ts).
 */
export type LeasedItems = QueryCreator<Database & { leased: { id: string } }>;

/**
 * The columns the lease writes. A channel's load leaves them out: on PostgreSQL it reads the rows
 * as they were before the lease, on SQLite after it, so their values differ by database.
 */
export type LeaseColumn = 'state' | 'claimed_at' | 'claimed_by';

/** A leased item as its channel loaded it: the outbox needs its ID and the attempts made before. */
export interface OutboxItem {
  id: string;
  /** Attempts made before this one (a re-sent item's is at least 1). */
  attempts: number;
  /**
   * Set by the channel's load: this item is not to be sent, and why (a recipient no longer
   * verified, a guard's limit, an integration turned off). The outbox records the outcome
   * `skipped` with this reason in the attempt log, in the transaction that leased it.
   */
  skip?: string;
}

/**
 * A channel's retry policy: the outbox computes every schedule from it, so a channel never
 * counts attempts or backoff itself.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: never retried). */
  maxAttempts: number;
  /** Delay before the retry that follows attempt `attempt` (1-based). */
  backoffMs(attempt: number): number;
}

/** After `baseMs`, then ×4 each time, at most five attempts in all: email and integrations (docs/email.md). */
export function fourfoldBackoff(baseMs: number): RetryPolicy {
  return { maxAttempts: 5, backoffMs: (attempt) => baseMs * 4 ** (attempt - 1) };
}

/** Attempted once; only its owner sends it again: hook deliveries (docs/api.md, REST hooks). */
export const ONCE: RetryPolicy = { maxAttempts: 1, backoffMs: () => 0 };

/** What a channel made of one attempt's answer. */
export type AttemptAnswer =
  | { kind: 'sent' }
  /** Worth trying again (a timeout, a 5xx, a 429); `retryAfterMs` wins over the backoff. */
  | { kind: 'temporary'; retryAfterMs?: number | undefined }
  /** Trying again cannot help (a refusal, a bounce, a message that cannot be built). */
  | { kind: 'permanent' };

/**
 * What a channel made of one attempt: the policy's answer, which the outbox turns into the item's
 * next step, and what the attempt log keeps of it.
 */
export interface SendOutcome {
  answer: AttemptAnswer;
  /** The answer's HTTP status; null without one (and for email). */
  status: number | null;
  /** How long the request took; null when none was made (nothing to send, or email's pooled send). */
  durationMs: number | null;
  /** The error, or the server's reply (SMTP). */
  error: string | null;
  /** The channel's own word for an outcome that is not sent, retry or failed (email's `bounced`, an integration's `disabled`); the log shows it. */
  label?: string;
  /** The item's state when it is done and the policy's `failed` does not say it (`bounced`). */
  state?: string;
  /**
   * The outcome has a side effect the channel writes with it (OutboxChannel.settle): recorded on
   * its own, in one transaction with the side effect, not in a batch.
   */
  settles?: boolean;
}

/** An attempt as the outbox recorded it: the outcome's label and the item's new state. */
export interface RecordedAttempt {
  attempt: number;
  attemptedAt: string;
  /** sent | retry | failed, or the channel's label. */
  outcome: string;
  state: string;
  error: string | null;
}

export interface ChannelContext {
  /** Asks the dispatcher to look for due work again after `delayMs` (e.g. digests just queued). */
  wakeAfter(delayMs: number): void;
}

/**
 * The one way to queue outbound work, used by the submit path, triage ("not spam") and the
 * deletions. Every call runs inside the caller's
 * transaction; `committed()` after the commit wakes this instance's dispatcher and, on
 * PostgreSQL, the other instances'.
 */
export interface OutboxQueue {
  /**
   * Queues the submissions' outbound work (one outbox row per submission whose form has work
   * for some channel); a submission already queued is not queued twice. Given with their form and
   * time (new submissions), one query for the whole batch finds which forms have work; given as
   * IDs, `releasedAt` (default: the arrival) decides which subscriptions receive it.
   */
  queue(trx: Trx, submissions: ReadonlyArray<string> | ReadonlyArray<QueuedSubmission>, options?: { releasedAt?: string }): Promise<number>;
  /** The same queueing as a data-modifying statement over `source` (PostgreSQL's one-statement submit batch). */
  queueSql(source: string): string;
  /** After the commit of a transaction that queued any. */
  committed(): void;
  /** Drops queued work of submissions about to be deleted, before them, in the deleting transaction. */
  drop(trx: Trx, submissionIds: string[]): Promise<void>;
}

export interface QueuedSubmission {
  id: string;
  formId: string;
  createdAt: string;
}

/**
 * A way outbound work leaves Formgate (hook deliveries, email, chat messages). The outbox owns the
 * queue, the wake-ups, the concurrency, the claim of due items with a lease (renewed while a send
 * runs, taken back when it expires: outbox.lease.ts), the retry schedule (computed from the
 * channel's `policy`: outbox.policy.ts), every outcome (sent, retried, failed, the channel's own
 * labels, skipped) with the one attempt log, `outbox_attempts`, the count of work pending, the
 * owner's test sends and the message log. A channel owns what is its own: which forms have work
 * for it, how a queued submission expands into its items, what sending a leased item needs (or
 * why it is skipped) and how it is sent, in its own table, which the outbox names through `table`
 * only. A channel is a feature folder plugged in from src/services.ts; the outbox names none.
 */
export interface OutboxChannel<Item extends OutboxItem = OutboxItem> {
  readonly name: string;
  /** At most this many of the channel's sends run at once. */
  readonly maxInFlight: number;
  /**
   * The channel's items: each row has `id`, `state` (pending → sending → …), `attempts`,
   * `created_at`, `claimed_at` and `claimed_by`, and `next_attempt_at` when its policy retries.
   * Items `pending` or `sending` are the channel's part of the work pending.
   */
  readonly table: LeasedTable;
  /** Attempts, backoff and which answers are permanent. */
  readonly policy: RetryPolicy;
  /**
   * SQL text of a boolean expression that holds when the form whose id is `formIdColumn` has work
   * for this channel (e.g. it has a hook): a submission is queued when any channel's holds. It is
   * run in the submit transaction and in PostgreSQL's one-statement submit batch, so it must be
   * plain SQL valid on both databases, over tables the channel owns. `formIdColumn` is a column
   * reference written by the outbox, never input.
   */
  formHasWorkSql(formIdColumn: string): string;
  /**
   * SQL text of a boolean expression over a due item of `table` (referred to by the table's own
   * name): false keeps it from being leased for now, e.g. while an earlier item to the same
   * target is queued or in flight, for a target that must receive its items one at a time and in
   * order. Plain SQL valid on both databases, over the channel's own tables. Absent: every due
   * item may be leased.
   */
  leasableSql?(table: string): string;
  /**
   * Inside the dispatcher's transaction that takes the submissions off the outbox; their rows are
   * still in the `outbox` table (its created_at is when each was released) and deleted after.
   * Returns how many items it created: a channel that created none is not asked to claim.
   */
  expand(trx: Trx, submissionIds: string[]): Promise<number>;
  /**
   * Inside the dispatcher's transaction, as the outbox leases the channel's due items to this
   * instance: reads what sending them needs with one query from `leased`, selecting no
   * LeaseColumn, and returns the items, oldest due first, each to send or with the reason it is
   * skipped (`skip`). The dispatcher records the skipped ones in that transaction and sends the
   * others only once it committed. Called at most once in a transaction: locks it takes in an
   * order of its own (sorted, say) stay in that order until the commit, so two dispatchers cannot
   * deadlock on them.
   */
  load(trx: Trx, leased: LeasedItems): Promise<Item[]>;
  /** Makes one attempt at a leased item and says how it went; the outbox records it. Never throws for an answer. */
  send(item: Item): Promise<SendOutcome>;
  /**
   * The side effect of an outcome marked `settles` (a bounce suppresses the address, a refusal
   * turns an integration off, a 410 ends a subscription), in the transaction that records it.
   */
  settle?(trx: Trx, item: Item, attempt: RecordedAttempt): Promise<void>;
  /** After a send's attempt is recorded (or failed to be): the channel's metrics and log lines. */
  recorded?(item: Item, attempt: RecordedAttempt): void;
  /**
   * The owner's "Send test": one attempt now, outside the queue, at a sample message to
   * `subjectId` (a hook, an integration, an email recipient). It has no side effect; the outbox
   * logs it under that ID. Undefined when the subject is gone.
   */
  sendTest?(subjectId: string): Promise<SendOutcome | undefined>;
  start?(context: ChannelContext): Promise<void>;
  close(): Promise<void>;
}

/** One row of the attempt log: an attempt at an item, or a test send logged under its subject's ID. */
export interface LoggedAttempt {
  id: string;
  itemId: string;
  attempt: number;
  attemptedAt: string;
  /** sent | retry | failed | skipped, or a channel's label (bounced, disabled). */
  outcome: string;
  status: number | null;
  durationMs: number | null;
  /** The error, the server's reply (SMTP), or why the item was skipped. */
  error: string | null;
}

/** A test send as the outbox made and logged it. */
export interface TestSend {
  sent: boolean;
  status: number | null;
  durationMs: number | null;
  error: string | null;
}

/** Which service sends a message again: the channel's name in the owner's words. */
export type MessageChannel = 'hook' | 'email' | 'integration';

/** One of a channel's items, as its service describes it for the message log. */
export interface LoggedItem {
  channel: MessageChannel;
  id: string;
  /** What it is, in words: "Hook delivery", "Notification email", "Confirmation email", "Slack message". */
  kind: string;
  /** Where it goes: a hook's URL, an address, an integration's name. */
  target: string;
  /** The item's stored state. */
  state: string;
  attempts: number;
  createdAt: string;
  /** The owner may send it again once it is done (never a visitor's confirmation). */
  resendable: boolean;
  /** When a queued item is tried next (channels that retry keep it; hooks never retry on their own). */
  nextAttemptAt?: string | null;
}

/**
 * One outbound message as the owner sees it: the outbox describes every channel's items in this
 * shape, from the item and its attempts, and the submission's page lists them together.
 */
export interface MessageLogEntry {
  /** Which service sends it again. */
  channel: MessageChannel;
  id: string;
  kind: string;
  target: string;
  state: MessageState;
  /** Why it was skipped or failed, when known. */
  reason: string | null;
  attempts: number;
  /** The last answer: an HTTP status, an SMTP reply, an error. */
  lastStatus: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  /** While `retrying`: when the next attempt is due. */
  nextAttemptAt: string | null;
  /** The attempts before the last, oldest first. */
  earlierAttempts: Array<{ at: string; answer: string }>;
  /** The owner may send it again (never the visitor's confirmation, nor one queued or in flight). */
  canSendAgain: boolean;
}

/** `retrying`: an attempt failed and another is due; `failed`: no more will be made on their own. */
export type MessageState = 'queued' | 'retrying' | 'sending' | 'sent' | 'failed' | 'skipped';
