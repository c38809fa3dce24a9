import { isSealedPayload } from '../../platform/lib/age.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Executor, Trx } from '../../platform/db/database.js';
import { nowIso } from '../../platform/lib/time.js';
import { NaiveBayesModel } from './naive-bayes.js';
import {
  addToSpamFilterTokens,
  bumpSpamFilterModel,
  findLessonLabels,
  findSpamFilterModelRow,
  findSubmissionsToLearn,
  listSpamFilterTokensSince,
  upsertLessons,
  type LessonLabel,
} from './spam-filter.repository.js';
import { tokenize, type FieldsToLearn } from './tokenize.js';

/**
 * A submission scoring at least this is filed as spam (`classifier`). Chosen on the SpamAssassin
 * corpus (`npm run bench:spam-filter`, BENCHMARKS.md): a person's message wrongly filed as spam is
 * the costly error, so the bar is high.
 */
export const SPAM_THRESHOLD = 0.9999;
/** Below this many examples of each kind the filter never files anything: a young model is too sure of itself. */
export const MIN_EXAMPLES_PER_LABEL = 10;
/** How often an instance asks the database whether the model changed (one small read per account). */
export const MODEL_CHECK_INTERVAL_MS = 1000;
/** Caught submissions waiting to be learned; beyond this (a flood) the newest are not learned. */
const MAX_QUEUED_LESSONS = 2000;
const FLUSH_DELAY_MS = 200;
const MAX_CACHED_ACCOUNTS = 5000;

interface CachedModel {
  model: NaiveBayesModel;
  version: number;
  checkedAt: number;
  refreshing: boolean;
}

export interface SpamFilterStatus {
  /** Spam and not-spam examples learned. */
  spam: number;
  ham: number;
  /** Examples of each kind it needs before it files anything. */
  needed: number;
  ready: boolean;
}

export interface Lesson {
  submissionId: string;
  accountId: string;
  payload: FieldsToLearn;
  label: LessonLabel;
}

/**
 * The learning filter (docs/bot-checks.md), one model per account. The model is token counts
 * in the database (shared by every instance); each instance scores from a copy in memory, so the
 * submit path never waits on the database for it once an account's model is loaded: the copy is
 * checked against the stored version at most once a second, in the background, and only rows
 * changed since are read.
 */
export class SpamFilterService {
  private readonly cache = new Map<string, CachedModel>();
  private readonly loading = new Map<string, Promise<CachedModel>>();
  private queue: Lesson[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /**
   * The spam probability of a payload for the account, or undefined while the model has fewer
   * than MIN_EXAMPLES_PER_LABEL examples of spam or of not spam.
   */
  async score(accountId: string, payload: FieldsToLearn): Promise<number | undefined> {
    const { model } = await this.modelOf(accountId);
    if (model.spamExamples < MIN_EXAMPLES_PER_LABEL || model.hamExamples < MIN_EXAMPLES_PER_LABEL) return undefined;
    return model.spamProbability(tokenize(payload));
  }

  /** The score when it says spam with high confidence; undefined otherwise. */
  async judge(accountId: string, payload: FieldsToLearn): Promise<number | undefined> {
    const score = await this.score(accountId, payload);
    return score !== undefined && score >= SPAM_THRESHOLD ? score : undefined;
  }

  /**
   * What the account's filter learned from, by kind, and whether it has enough of each to file
   * anything (the dashboard says what it still needs).
   */
  async status(accountId: string): Promise<SpamFilterStatus> {
    const row = await findSpamFilterModelRow(this.db, accountId);
    const spam = row ? Number(row.spam_examples) : 0;
    const ham = row ? Number(row.ham_examples) : 0;
    return { spam, ham, needed: MIN_EXAMPLES_PER_LABEL, ready: spam >= MIN_EXAMPLES_PER_LABEL && ham >= MIN_EXAMPLES_PER_LABEL };
  }

  /** How many submissions the account's filter learned from (the dashboard's figure). */
  async countExamples(accountId: string): Promise<number> {
    const row = await findSpamFilterModelRow(this.db, accountId);
    return row ? Number(row.spam_examples) + Number(row.ham_examples) : 0;
  }

  /**
   * The owner's marks, learned inside the marking transaction: every mark is a lesson, "not
   * spam" on a submission that was not spam included. A submission taught twice the same way
   * counts once; taught the other way, its first lesson is taken back.
   */
  async learnFromMarks(trx: Trx, submissionIds: string[], spam: boolean): Promise<void> {
    const rows = await findSubmissionsToLearn(trx, submissionIds);
    const label: LessonLabel = spam ? 'spam' : 'ham';
    await this.learnInTransaction(
      trx,
      rows.map((r) => ({ submissionId: r.id, accountId: r.account_id, payload: JSON.parse(r.payload) as FieldsToLearn, label })),
    );
  }

  /**
   * A submission the honeypot, a rule or a bot check caught, learned shortly after it was stored
   * (batched, off the submit path). Lessons are not submissions: a flood beyond the queue's
   * bound, or a crash before the flush, loses some lessons and nothing else.
   */
  learnCaughtLater(lesson: Omit<Lesson, 'label'>): void {
    if (this.queue.length >= MAX_QUEUED_LESSONS) return;
    this.queue.push({ ...lesson, label: 'spam' });
    this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Learns what is queued now; resolves when it is stored (close and tests). */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushing;
    const lessons = this.queue;
    this.queue = [];
    if (lessons.length === 0) return;
    this.flushing = this.db
      .transaction()
      .execute(async (trx) => {
        // A submission deleted meanwhile (erasure, retention) has nothing left to learn from.
        const stored = new Set((await findSubmissionsToLearn(trx, lessons.map((l) => l.submissionId))).map((r) => r.id));
        await this.learnInTransaction(trx, lessons.filter((l) => stored.has(l.submissionId)));
      })
      .catch((err: unknown) => this.logger.warn({ err, lessons: lessons.length }, 'spam filter: caught submissions not learned'))
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
  }

  private async learnInTransaction(trx: Trx, all: Lesson[]): Promise<void> {
    // A sealed submission's only field is ciphertext: nothing in it to learn (docs/sealed-forms.md).
    const lessons = all.filter((lesson) => !isSealedPayload(lesson.payload));
    if (lessons.length === 0) return;
    const previous = await findLessonLabels(trx, lessons.map((l) => l.submissionId));
    const perAccount = new Map<string, { spam: number; ham: number; tokens: Map<string, { spam: number; ham: number }> }>();
    const changed: Lesson[] = [];
    for (const lesson of lessons) {
      const before = previous.get(lesson.submissionId);
      if (before === lesson.label) continue;
      previous.set(lesson.submissionId, lesson.label);
      changed.push(lesson);
      let account = perAccount.get(lesson.accountId);
      if (!account) perAccount.set(lesson.accountId, (account = { spam: 0, ham: 0, tokens: new Map() }));
      const step = (label: LessonLabel, by: number) => {
        account![label] += by;
        for (const token of tokenize(lesson.payload)) {
          const counts = account!.tokens.get(token) ?? { spam: 0, ham: 0 };
          counts[label] += by;
          account!.tokens.set(token, counts);
        }
      };
      if (before) step(before, -1);
      step(lesson.label, 1);
    }
    for (const [accountId, delta] of perAccount) {
      const version = await bumpSpamFilterModel(trx, accountId, delta.spam, delta.ham);
      await addToSpamFilterTokens(trx, accountId, version, delta.tokens);
      // This instance sees its own lesson on the next score, not a second later.
      const cached = this.cache.get(accountId);
      if (cached) cached.checkedAt = 0;
    }
    const createdAt = nowIso();
    await upsertLessons(
      trx,
      changed.map((l) => ({ submission_id: l.submissionId, account_id: l.accountId, label: l.label, created_at: createdAt })),
    );
  }

  private async modelOf(accountId: string): Promise<CachedModel> {
    const cached = this.cache.get(accountId);
    if (cached) {
      if (!cached.refreshing && Date.now() - cached.checkedAt >= MODEL_CHECK_INTERVAL_MS) {
        cached.refreshing = true;
        this.refresh(accountId, cached)
          .catch((err: unknown) => this.logger.warn({ err }, 'spam filter: model refresh failed'))
          .finally(() => (cached.refreshing = false));
      }
      return cached;
    }
    // The first score of an account in this process waits for its model; later ones never do.
    let loading = this.loading.get(accountId);
    if (!loading) {
      loading = this.load(accountId).finally(() => this.loading.delete(accountId));
      this.loading.set(accountId, loading);
    }
    return loading;
  }

  private async load(accountId: string): Promise<CachedModel> {
    const cached: CachedModel = { model: new NaiveBayesModel(), version: 0, checkedAt: 0, refreshing: false };
    await this.refresh(accountId, cached);
    if (this.cache.size >= MAX_CACHED_ACCOUNTS) this.cache.clear();
    this.cache.set(accountId, cached);
    return cached;
  }

  /** Reads the rows changed since the copy's version. Rows newer than the version read are applied too, and read again next time: counts are replaced, never added, so that is harmless. */
  private async refresh(accountId: string, cached: CachedModel): Promise<void> {
    cached.checkedAt = Date.now();
    const head = await findSpamFilterModelRow(this.db, accountId);
    if (!head || Number(head.version) === cached.version) return;
    const rows = await listSpamFilterTokensSince(this.db, accountId, cached.version);
    for (const row of rows) cached.model.setToken(row.token, Number(row.spam_count), Number(row.ham_count));
    cached.model.spamExamples = Number(head.spam_examples);
    cached.model.hamExamples = Number(head.ham_examples);
    cached.version = Number(head.version);
  }
}
