import type { AuditService } from '../audit/audit.service.js';
import type { HookDeliveryChannel } from './delivery.channel.js';
import type { DeliveryResult } from './delivery.sender.js';
import { randomBytes } from 'node:crypto';
import type { AccountService } from '../accounts/account.service.js';
import { planAllowsHooks } from '../accounts/account.types.js';
import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import { AppError, notFound, validationFailed } from '../errors.js';
import type { FormService } from '../forms/form.service.js';
import { newId } from '../lib/ids.js';
import { nowIso } from '../lib/time.js';
import {
  deleteHookRow,
  deliveryRowToAttempt,
  findHookRowOfAccount,
  hookRowToHook,
  insertHook,
  listDeliveryRowsOfHook,
  listHookRowsOfAccount,
} from './hook.repository.js';
import type { DeliveryAttempt, Hook } from './hook.types.js';
import { targetUrlProblem } from '../lib/target-url.js';

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
    private readonly deliveries?: Pick<HookDeliveryChannel, 'sendTest'>,
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
      await this.audit?.record(trx, accountId, 'hook.added', { type: 'hook', id: row.id }, { formId: row.form_id, targetUrl: row.target_url });
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
      await this.audit?.record(trx, accountId, 'hook.removed', { type: 'hook', id: row.id }, { formId: row.form_id, targetUrl: row.target_url });
    });
  }

  /** The target answered 410 Gone to a delivery: the subscription ends (Zapier's convention). */
  async unsubscribeGoneHook(hookId: string): Promise<void> {
    await this.db.transaction().execute((trx) => deleteHookRow(trx, hookId));
  }

  async listRecentDeliveries(accountId: string, hookId: string, limit: number): Promise<DeliveryAttempt[]> {
    const row = await findHookRowOfAccount(this.db, accountId, hookId);
    if (!row) throw notFound('Hook');
    return (await listDeliveryRowsOfHook(this.db, row.id, limit)).map(deliveryRowToAttempt);
  }

  /** Sends a signed example body to the hook's target now (the dashboard's "Send test"). */
  async sendTestDelivery(accountId: string, hookId: string): Promise<DeliveryResult> {
    const row = await findHookRowOfAccount(this.db, accountId, hookId);
    if (!row) throw notFound('Hook');
    if (!this.deliveries) throw new AppError('internal_error', 'Deliveries are not running in this process.');
    return this.deliveries.sendTest({ id: row.id, formId: row.form_id, targetUrl: row.target_url, secret: row.secret });
  }
}
