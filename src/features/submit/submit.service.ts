import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../platform/config.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import type { OutboxQueue } from '../outbox/outbox.types.js';
import { AppError, notFound, validationFailed } from '../../platform/errors.js';
import type { FormService } from '../forms/form.service.js';
import type { Form } from '../forms/form.types.js';
import { chooseLanguage } from '../../platform/i18n/i18n.js';
import { newTimeOrderedId } from '../../platform/lib/ids.js';
import { isoMinus, nowIso } from '../../platform/lib/time.js';
import { postedAccessKey, separateControlFields } from './control-fields.js';
import { resolveCountry } from './country.js';
import { checkSealedPayload } from './sealed-submission.js';
import { checkSubmissionContent } from './required-fields.js';
import { successDestination } from './redirects.js';
import { matchSpamRule, originAllowed } from './spam-rules.js';
import type { SpamReason } from '../submissions/submission.types.js';
import { deleteExpiredIdempotencyRecords, findLiveIdempotencyRecord, type BatchedSubmission } from './submission.repository.js';
import { POSTGRES_BATCHES, SubmissionWriter, batchStoreFor, type WriteResult, type WriterStats } from './submission.writer.js';
import type { PostedFields } from './submit-fields.js';
import type { BotCheckService } from '../bot-checks/bot-check.service.js';
import type { SpamFilterService } from '../spam-filter/spam-filter.service.js';
import { setSubmissionSpamScore } from './submission-score.repository.js';
import type { SearchIndexer } from '../search/search.service.js';
import type { FileService } from '../files/file.service.js';
import type { ScanState, UploadBatch } from '../files/file.types.js';

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const PURGE_INTERVAL_MS = 60 * 60 * 1000;
const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface SubmitRequest {
  fields: PostedFields;
  idempotencyKey: string | undefined;
  ip: string;
  userAgent: string;
  referer: string;
  /** The Origin header, checked against the form's allowedOrigins. */
  origin?: string | undefined;
  /** The Accept-Language header: a form set to `auto` speaks the visitor's language. */
  acceptLanguage?: string | undefined;
  countryHeader: string | undefined;
  /** The files of a multipart body on a form that keeps files, already stored. */
  uploads?: UploadBatch | undefined;
}

/** What the first successful attempt answered; replays answer the same. */
interface SubmitResult {
  submissionId: string;
  spam: boolean;
  /** The redirect-mode destination. */
  redirectTo: string;
}

declare const admitted: unique symbol;
/**
 * A request its form admits (active, from an allowed origin, with the right access key): made
 * only by admitSubmission, and the only thing acceptSubmission stores.
 */
export interface Admission {
  readonly request: SubmitRequest;
  readonly form: Form;
  readonly [admitted]: true;
}

export interface SubmitOutcome extends SubmitResult {
  cached: boolean;
}

interface StoreOutcome {
  result: SubmitResult;
  /** True when another instance had stored the same Idempotency-Key first. */
  replayed: boolean;
}

/** Throws unless the Idempotency-Key header is absent or 1–255 printable ASCII characters. */
export function checkIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw validationFailed('The Idempotency-Key header is not valid.', {
      'Idempotency-Key': 'must be 1 to 255 printable ASCII characters',
    });
  }
  return value;
}

// One call, no Hash object: half the cost of createHash().update().digest() (0.9 against 1.7 µs).
const sha256 = (text: string) => hash('sha256', text, 'buffer');

/** The hash of each cached form's access key, computed once per form read (forms are re-read every second). */
const accessKeyHashes = new WeakMap<Form, Buffer>();

/** Constant-time comparison of a presented access key with the form's. */
function accessKeyMatches(presented: string | undefined, form: Form, accessKey: string): boolean {
  if (presented === undefined) return false;
  let expected = accessKeyHashes.get(form);
  if (!expected) {
    expected = sha256(accessKey);
    accessKeyHashes.set(form, expected);
  }
  return timingSafeEqual(sha256(presented), expected);
}

/**
 * The submit path: checks the form, the access key and the idempotency record, filters spam,
 * and hands the submission to the group-commit writer (one transaction with its idempotency
 * record and outbox row). Never waits on a hook or an email.
 */
export class SubmissionService {
  private readonly writer: SubmissionWriter;
  /** Requests in progress per form and Idempotency-Key: a repeat waits for the first. */
  private readonly inFlight = new Map<string, Promise<StoreOutcome>>();
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly config: Config,
    private readonly forms: FormService,
    outbox: OutboxQueue,
    private readonly logger: FastifyBaseLogger,
    private readonly spamChecks: { botChecks: BotCheckService; spamFilter: SpamFilterService },
    searchIndex: SearchIndexer,
    private readonly files?: FileService,
  ) {
    this.writer = new SubmissionWriter(
      batchStoreFor(handle, () => this.idempotencyCutoff(), outbox),
      outbox,
      {
        ...(handle.dialect === 'postgres' ? POSTGRES_BATCHES : {}),
        onStored: () => searchIndex.wake(),
        onWakeFailed: (err) => logger.error({ err }, 'waking the dispatcher or the search indexer failed after a commit'),
      },
    );
  }

  /** Group-commit totals: transactions committed and submissions they stored. */
  get writerStats(): Readonly<WriterStats> {
    return this.writer.stats;
  }

  /** Starts the periodic purge of expired idempotency records. */
  start(): void {
    const purge = () =>
      this.purgeExpiredIdempotencyKeys().catch((err: unknown) => this.logger.warn({ err }, 'idempotency purge failed'));
    void purge();
    this.purgeTimer = setInterval(purge, PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    await this.writer.drain();
  }

  async purgeExpiredIdempotencyKeys(): Promise<number> {
    return deleteExpiredIdempotencyRecords(this.handle.db, this.idempotencyCutoff());
  }

  /** The form a submit URL names, for callers that must know it before the body is read. */
  async findForm(formId: string): Promise<Form | undefined> {
    return this.forms.findFormCached(formId);
  }

  /** findForm without waiting, when the answer is already known (see FormService.peekFormCached). */
  peekForm(formId: string): Form | null | undefined {
    return this.forms.peekFormCached(formId);
  }

  /**
   * Whether the form takes this request at all: the refusal (inactive, origin, access key), else
   * the admission to store. Returned, not thrown: a flood of wrong keys is answered without an
   * exception and Fastify's error path per request (docs/performance.md#refusals-in-the-check-phase).
   * `target` is the form the submit URL names, looked up before the body was read (findForm).
   */
  admitSubmission(request: SubmitRequest, target: Form): Admission | AppError {
    if (!target.isActive) return new AppError('form_inactive', 'This form is not accepting submissions.');
    if (!originAllowed(target.allowedOrigins, request.origin, request.referer)) {
      return new AppError('origin_not_allowed', 'This form does not accept submissions from this website.');
    }
    if (target.accessKey !== null && !accessKeyMatches(postedAccessKey(request.fields), target, target.accessKey)) {
      return new AppError('access_denied', 'A valid access_key is required to submit to this form.');
    }
    return { request, form: target } as Admission;
  }

  async acceptSubmission({ request, form: target }: Admission): Promise<SubmitOutcome> {
    const { control, payload } = separateControlFields(request.fields, target.botCheck);
    // Before the idempotency record is read or written: a refused body stores nothing and replays nothing.
    if (target.sealed) checkSealedPayload(payload);
    if (!request.idempotencyKey) {
      const { result, replayed } = await this.store(request, target, payload, control, undefined);
      return { ...result, cached: replayed };
    }
    return this.acceptOnce(request, target, payload, control);
  }

  /** At most one stored submission per form and Idempotency-Key within the window. */
  private async acceptOnce(
    request: SubmitRequest,
    form: Form,
    payload: PostedFields,
    control: ReturnType<typeof separateControlFields>['control'],
  ): Promise<SubmitOutcome> {
    const slot = `${form.id}\n${request.idempotencyKey}`;
    for (;;) {
      const pending = this.inFlight.get(slot);
      if (!pending) break;
      try {
        return { ...(await pending).result, cached: true };
      } catch {
        // The first attempt failed and errors are not cached: try again ourselves.
      }
    }
    // Looked up before the bot check, so a replay never spends a single-use Turnstile token.
    const existing = await this.findReplay(form.id, request.idempotencyKey!);
    if (existing) return { ...existing, cached: true };

    const attempt = this.store(request, form, payload, control, request.idempotencyKey);
    this.inFlight.set(slot, attempt);
    try {
      const { result, replayed } = await attempt;
      return { ...result, cached: replayed };
    } finally {
      this.inFlight.delete(slot);
    }
  }

  private async findReplay(formId: string, key: string): Promise<SubmitResult | undefined> {
    const record = await findLiveIdempotencyRecord(this.handle.db, formId, key, this.idempotencyCutoff());
    return record ? (JSON.parse(record.result) as SubmitResult) : undefined;
  }

  private async store(
    request: SubmitRequest,
    form: Form,
    payload: PostedFields,
    control: ReturnType<typeof separateControlFields>['control'],
    idempotencyKey: string | undefined,
  ): Promise<StoreOutcome> {
    const uploads = request.uploads && request.uploads.files.length > 0 && this.files ? request.uploads : undefined;
    // Scanned before anything is judged: malware makes the submission spam whatever else it is.
    const scan = uploads ? await this.files!.scan(uploads) : undefined;
    const { reason: spamReason, score } = scan?.malware ? { reason: 'malware' as const, score: undefined } : await this.spamReason(request, form, payload, control);
    const spam = spamReason !== null;
    const createdAt = nowIso();
    const submissionId = newTimeOrderedId('sub');
    if (uploads) await this.files!.attach(uploads, submissionId, scan?.states ?? new Map<string, ScanState>());
    const result: SubmitResult = {
      submissionId,
      spam,
      redirectTo: successDestination(form, control.redirect, this.config.baseUrl, submissionId),
    };
    const written = await this.writeSubmission({
      row: {
        id: result.submissionId,
        form_id: form.id,
        created_at: createdAt,
        status: 'delivered',
        is_spam: spam ? 1 : 0,
        spam_reason: spamReason,
        outbound_released: spam ? 0 : 1,
        payload: JSON.stringify(payload),
        // With storeIp "none" no address is kept (nor sent to hooks); the country is still resolved.
        ip: form.storeIp === 'none' ? '' : request.ip,
        country: resolveCountry(request.ip, request.countryHeader, this.config.countryHeader !== undefined),
        user_agent: request.userAgent,
        referer: request.referer,
        // What its pages spoke, so its confirmation email speaks it too.
        language: chooseLanguage(form.language, request.acceptLanguage),
      },
      ...(idempotencyKey
        ? {
            idempotency: {
              formId: form.id,
              key: idempotencyKey,
              submissionId: result.submissionId,
              result: JSON.stringify(result),
              createdAt,
            },
          }
        : {}),
      queueOutbound: !spam,
    });
    if (written.stored) {
      if (uploads) uploads.attached = true;
      if (spam) await this.afterSpamStored(form, result.submissionId, payload, spamReason, score);
      return { result, replayed: false };
    }
    // Another instance stored this key first: answer with its result.
    const winner = await this.findReplay(form.id, idempotencyKey!);
    if (!winner) throw new AppError('internal_error', 'The idempotency record vanished.');
    return { result: winner, replayed: true };
  }

  /**
   * Why the submission is spam, or null: the honeypot, then the form's rules (terms, emails,
   * links), then the bot check (`bot_check`, or `too_fast` for an ALTCHA solution sent too
   * soon), then the learning filter, the first match deciding. The bot check comes after the
   * cheap checks so a token is not spent on a submission already known to be spam.
   * An empty submission, or one missing a required field, is refused after the honeypot and
   * rules (the silent spam answers) and before the bot check, so no token is spent on it.
   */
  private async spamReason(
    request: SubmitRequest,
    form: Form,
    payload: PostedFields,
    control: ReturnType<typeof separateControlFields>['control'],
  ): Promise<{ reason: SpamReason | null; score?: number }> {
    if (control.honeypotFilled) return { reason: 'honeypot' };
    // A sealed form's fields are ciphertext: no rule, required field or learned word can be checked.
    if (!form.sealed) {
      const rule = matchSpamRule(form, payload);
      if (rule) return { reason: rule };
      checkSubmissionContent(payload, form.requiredFields);
    }
    const verdict = await this.spamChecks.botChecks.verify(form, control.botCheckResponse, request.ip);
    if (verdict !== 'passed') return { reason: verdict };
    if (form.spamFilter === 'learn' && !form.sealed) {
      const score = await this.spamChecks.spamFilter.judge(form.accountId, payload);
      if (score !== undefined) return { reason: 'classifier', score };
    }
    return { reason: null };
  }

  /**
   * The learning filter's score is kept beside its verdict (one small update, only for what it
   * filed); what the traps caught teaches the filter of a form that uses it, after the answer.
   */
  private async afterSpamStored(form: Form, submissionId: string, payload: PostedFields, reason: SpamReason | null, score: number | undefined) {
    if (reason === 'classifier' && score !== undefined) {
      await setSubmissionSpamScore(this.handle.db, submissionId, score).catch((err: unknown) =>
        this.logger.warn({ err, submissionId }, 'spam score not kept'),
      );
    } else if (form.spamFilter === 'learn' && reason !== 'classifier' && !form.sealed) {
      this.spamChecks.spamFilter.learnCaughtLater({ submissionId, accountId: form.accountId, payload });
    }
  }

  /** The writer's write; a form deleted meanwhile (by another instance, within the form cache's second) is not_found. */
  private async writeSubmission(write: BatchedSubmission): Promise<WriteResult> {
    let written: WriteResult;
    try {
      written = await this.writer.write(write);
    } catch (err) {
      // SQLite's foreign key refuses the row. PostgreSQL has no such key since migration 0015 (its
      // statement reports the form missing, below): a 23503 there would be another key's, a fault.
      if ((err as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw notFound('Form');
      throw err;
    }
    if (!written.stored && written.reason === 'form_missing') throw notFound('Form');
    return written;
  }

  private idempotencyCutoff(): string {
    return isoMinus(nowIso(), IDEMPOTENCY_WINDOW_MS);
  }
}
