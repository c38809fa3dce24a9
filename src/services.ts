import type { FastifyBaseLogger } from 'fastify';
import { AccountService } from './accounts/account.service.js';
import { ApiKeyService } from './api-keys/api-key.service.js';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { DeliveryDispatcher } from './deliveries/delivery.dispatcher.js';
import type { HookTransportOptions } from './deliveries/delivery.sender.js';
import { FormService } from './forms/form.service.js';
import { HookService } from './hooks/hook.service.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { SubmissionBrowseService } from './submissions/submission-browse.service.js';
import { InstanceSecretService } from './secrets/instance-secret.service.js';
import { SubmissionCursors } from './submissions/submission-cursor.js';
import { SubmissionQueryService } from './submissions/submission-query.service.js';
import { SubmissionService } from './submissions/submission.service.js';
import { SubmissionLifecycleService } from './submissions/submission-lifecycle.service.js';
import { SubmissionTriageService } from './submissions/submission-triage.service.js';
import { SessionService } from './dashboard/session.service.js';

/** Every domain service, built once per process (or per test app) and shared by HTTP and CLI. */
export interface Services {
  readonly config: Config;
  readonly handle: DatabaseHandle;
  readonly accounts: AccountService;
  readonly apiKeys: ApiKeyService;
  readonly forms: FormService;
  readonly submissions: SubmissionService;
  /** Reading stored submissions (API and dashboard). */
  readonly submissionQueries: SubmissionQueryService;
  /** Marking submissions spam / not spam. */
  readonly triage: SubmissionTriageService;
  /** Retention purge, erasure and form deletion. */
  readonly lifecycle: SubmissionLifecycleService;
  /** The dashboard's search, paging both ways, counters and bulk actions. */
  readonly submissionBrowser: SubmissionBrowseService;
  readonly hooks: HookService;
  readonly deliveries: DeliveryDispatcher;
  readonly sessions: SessionService;
  /** This instance's Prometheus metrics (incremented by the services, served on METRICS_PORT). */
  readonly metrics: Metrics;
  /** Secrets shared by every instance on the database (the cursor signing key). */
  readonly instanceSecrets: InstanceSecretService;
}

export function createServices(
  handle: DatabaseHandle,
  config: Config,
  logger: FastifyBaseLogger,
  transport: HookTransportOptions = {},
  metrics: Metrics = createMetrics(),
): Services {
  const forms = new FormService(handle.db, config.turnstileSecretKey);
  const deliveries = new DeliveryDispatcher(handle, config, logger, transport, metrics);
  metrics.setOutboxPendingSource(() => deliveries.countPending());
  const accounts = new AccountService(handle.db, config);
  const instanceSecrets = new InstanceSecretService(handle.db);
  return {
    config,
    handle,
    accounts,
    apiKeys: new ApiKeyService(handle.db),
    forms,
    submissions: new SubmissionService(handle, config, forms, deliveries, logger),
    submissionQueries: new SubmissionQueryService(handle.db, forms, new SubmissionCursors(instanceSecrets)),
    triage: new SubmissionTriageService(handle, deliveries),
    lifecycle: new SubmissionLifecycleService(handle, forms, logger, { purgeIntervalMs: config.retentionPurgeIntervalMs }),
    submissionBrowser: new SubmissionBrowseService(handle.db, handle.dialect, forms),
    hooks: new HookService(handle.db, config, forms, accounts, deliveries),
    deliveries,
    sessions: new SessionService(handle.db),
    metrics,
    instanceSecrets,
  };
}
