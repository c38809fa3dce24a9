import type { AuditService } from '../audit/audit.service.js';
import type { DeliveryResult } from './delivery.channel.js';
import { findDeliveryIdOfAccount, listDeliveryRowsOfSubmission, listFailedDeliveryIdsOfHook } from './delivery.repository.js';
import type { OutboxService } from '../outbox/outbox.service.js';
import type { MessageLogEntry } from '../outbox/outbox.types.js';
import { randomBytes } from 'node:crypto';
import type { AccountService } from '../accounts/account.service.js';
import { planAllowsHooks } from '../accounts/account.types.js';
import type { Config } from '../../platform/config.js';
import type { Executor, Trx } from '../../platform/db/database.js';
import { AppError, notFound, validationFailed } from '../../platform/errors.js';
import type { FormService } from '../forms/form.service.js';
import { newId } from '../../platform/lib/ids.js';
import { nowIso } from '../../platform/lib/time.js';
import {
  deleteHookRow,
  deliveryRowToAttempt,
  findHookRowOfAccount,
  hookRowToHook,
  insertHook,
  listDeliveryRowsOfHook,
  listHookRowsOfAccount,
  testSendToAttempt,
} from './hook.repository.js';
import type { DeliveryAttempt, Hook } from './hook.types.js';
import { targetUrlProblem } from '../../platform/lib/target-url.js';

export interface NewHookInput {
  formId: string;
  targetUrl: string;
}

/** REST-hook subscriptions: Pro or higher plans, the account's own forms, public HTTPS targets. */
export class HookService {
  constructor(
    private readonly db: Executor,
    private readonly config: Config,
    private readonly forms: FormService,
    private readonly accounts: AccountService,
    private readonly outbox: Pick<OutboxService, 'sendAgain' | 'sendTest' | 'listTestSends' | 'listAttemptsOf' | 'messageLog'>,
    private readonly audit?: AuditService,
  ) {}

  /** The signing secret is returned here once and never shown again. */
  async createHook(accountId: string, input: NewHookInput): Promise<{ hook: Hook; secret: string }> {
    const account = await this.accounts.getAccount(accountId);
    if (!planAllowsHooks(account.planId)) {
      throw new AppError('plan_required', 'REST hooks need a Pro or higher plan.');
    }
    await this.forms.getFormOfAccount(accountId, input.formId);
    const problem = targetUrlProblem(input.targetUrl, this.config.hookAllowPrivateTargets);
    if (problem) throw validationFailed('The targetUrl is not a public HTTPS URL.', { targetUrl: problem });
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const row = {
      id: newId('hook'),
      account_id: accountId,
      form_id: input.formId,
      target_url: new URL(input.targetUrl).href,
      secret,
      created_at: nowIso(),
    };
    await this.db.transaction().execute(async (trx) => {
      await insertHook(trx, row);
      await this.audit?.record(trx, accountId, 'hook.added', { type: 'hook', id: row.id, label: row.target_url }, { formId: row.form_id, targetUrl: row.target_url });
    });
    return { hook: hookRowToHook(row), secret };
  }

  async listHooks(accountId: string): Promise<Hook[]> {
    return (await listHookRowsOfAccount(this.db, accountId)).map(hookRowToHook);
  }

  async deleteHook(accountId: string, hookId: string): Promise<void> {
    const row = await findHookRowOfAccount(this.db, accountId, hookId);
    if (!row) throw notFound('Hook');
    await this.db.transaction().execute(async (trx) => {
      await deleteHookRow(trx, row.id);
      await this.audit?.record(trx, accountId, 'hook.removed', { type: 'hook', id: row.id, label: row.target_url }, { formId: row.form_id, targetUrl: row.target_url });
    });
  }

  /** The hook's newest deliveries, its "Send test" ones among them. */
  async listRecentDeliveries(accountId: string, hookId: string, limit: number): Promise<DeliveryAttempt[]> {
    const row = await findHookRowOfAccount(this.db, accountId, hookId);
    if (!row) throw notFound('Hook');
    const [deliveries, tests] = await Promise.all([listDeliveryRowsOfHook(this.db, row.id, limit), this.outbox.listTestSends([row.id], limit)]);
    const attempts = await this.outbox.listAttemptsOf(deliveries.map((d) => d.id));
    const time = (a: DeliveryAttempt) => a.attemptedAt ?? a.createdAt;
    return [...deliveries.map((d) => deliveryRowToAttempt(d, attempts.get(d.id)?.at(-1))), ...tests.map(testSendToAttempt)]
      .sort((a, b) => (time(a) < time(b) ? 1 : time(a) > time(b) ? -1 : 0))
      .slice(0, limit);
  }

  /** Sends a signed example body to the hook's target now (the dashboard's "Send test"); the outbox logs it with the hook's deliveries. */
  async sendTestDelivery(accountId: string, hookId: string): Promise<DeliveryResult> {
    const row = await findHookRowOfAccount(this.db, accountId, hookId);
    if (!row) throw notFound('Hook');
    const result = await this.outbox.sendTest('hooks', row.id);
    // Deleted meanwhile: as unknown as before.
    if (!result) throw notFound('Hook');
    return { status: result.status, error: result.error, durationMs: result.durationMs ?? 0 };
  }

  /** The submission's hook deliveries, as its page lists them (the account's hooks only). */
  async listDeliveriesOfSubmission(accountId: string, submissionId: string): Promise<MessageLogEntry[]> {
    const rows = await listDeliveryRowsOfSubmission(this.db, accountId, submissionId);
    return this.outbox.messageLog(
      rows.map((d) => ({ channel: 'hook', id: d.id, kind: 'Hook delivery', target: d.target_url, state: d.state, attempts: Number(d.attempts), createdAt: d.created_at, resendable: true })),
    );
  }

  /** "Send again" of one delivery: one new attempt through the outbox, with the same `webhook-id`. Returns whether it was queued. */
  async sendDeliveryAgain(accountId: string, deliveryId: string): Promise<boolean> {
    const id = await findDeliveryIdOfAccount(this.db, accountId, deliveryId);
    if (!id) throw notFound('Delivery');
    const sentAgain = (trx: Trx) => this.audit?.record(trx, accountId, 'delivery.sent_again', { type: 'hook_delivery', id }, { channel: 'hook' }) ?? Promise.resolve();
    return (await this.outbox.sendAgain('hooks', [id], { record: sentAgain })) > 0;
  }

  /**
   * After an outage: one new attempt for each delivery of the hook made in [since, until) whose
   * last attempt failed, at most MAX_REDELIVERIES a call. Returns how many were queued.
   */
  async redeliver(accountId: string, hookId: string, input: { since: string; until?: string | undefined }): Promise<number> {
    const row = await findHookRowOfAccount(this.db, accountId, hookId);
    if (!row) throw notFound('Hook');
    const since = instantOf(input.since, 'since');
    const until = input.until === undefined ? undefined : instantOf(input.until, 'until');
    if (until !== undefined && until <= since) throw validationFailed('until must be after since.', { until: 'must be after since' });
    const ids = await listFailedDeliveryIdsOfHook(this.db, row.id, { since, until }, MAX_REDELIVERIES + 1);
    if (ids.length > MAX_REDELIVERIES) {
      throw validationFailed(
        `More than ${MAX_REDELIVERIES.toLocaleString('en')} failed deliveries in this range; at most ${MAX_REDELIVERIES.toLocaleString('en')} are sent again per call. Narrow the range (since/until) and call again.`,
        { since: `over ${MAX_REDELIVERIES} failed deliveries in the range` },
      );
    }
    const sentAgain = (trx: Trx, queued: number) =>
      this.audit?.record(trx, accountId, 'delivery.sent_again', { type: 'hook', id: row.id }, { channel: 'hook', count: queued, since, ...(until ? { until } : {}) }) ?? Promise.resolve();
    return this.outbox.sendAgain('hooks', ids, { record: sentAgain });
  }
}

/** The most deliveries one redelivery call sends again (docs/api.md, the management API). */
export const MAX_REDELIVERIES = 10_000;

/** An ISO 8601 time as stored (UTC, milliseconds), or a field error. */
function instantOf(value: string, field: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw validationFailed(`${field} is not an ISO 8601 time.`, { [field]: 'must be an ISO 8601 time, e.g. 2026-11-22T10:15:30.123Z' });
  return new Date(ms).toISOString();
}
