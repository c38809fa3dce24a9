import { ApiIdempotencyService } from './features/form-config/api-idempotency.service.js';
import { FormConfigService } from './features/form-config/form-config.service.js';
import type { FastifyBaseLogger } from 'fastify';
import { AccountService } from './features/accounts/account.service.js';
import { AdminService, recordLastPurge } from './features/admin/admin.service.js';
import { ApiKeyService } from './features/api-keys/api-key.service.js';
import type { Config } from './platform/config.js';
import type { DatabaseHandle } from './platform/db/database.js';
import { DeliverySender, HookDeliveryChannel, type HookTransportOptions } from './features/hooks/delivery.channel.js';
import { FormService } from './features/forms/form.service.js';
import { EmailChannel, type EmailAttemptListener } from './features/notifications/email.channel.js';
import { SuppressionService } from './features/notifications/suppression.service.js';
import { SmtpMailer, type MailTransportOptions } from './features/notifications/mailer.js';
import { NotificationService } from './features/notifications/notification.service.js';
import { PasswordResetService } from './features/accounts/password-reset.service.js';
import { EmailChangeService } from './features/accounts/email-change.service.js';
import type { OutboxChannel } from './features/outbox/outbox.types.js';
import { OutboxService } from './features/outbox/outbox.service.js';
import { HookService } from './features/hooks/hook.service.js';
import { IntegrationChannel } from './features/integrations/integration.channel.js';
import { IntegrationSender } from './features/integrations/integration.sender.js';
import { IntegrationService } from './features/integrations/integration.service.js';
import { createMetrics, type Metrics } from './platform/metrics/metrics.js';
import { SubmissionBrowseService } from './features/submissions/submission-browse.service.js';
import { SearchIndexer } from './features/search/search.service.js';
import { InstanceSecretService } from './features/secrets/instance-secret.service.js';
import { SubmissionCursors } from './features/submissions/submission-cursor.js';
import { SubmissionQueryService } from './features/submissions/submission-query.service.js';
import { SubmissionService } from './features/submit/submit.service.js';
import { SubmissionLifecycleService } from './features/retention/retention.service.js';
import { SubmissionTriageService } from './features/inbox/triage.service.js';
import { SubmissionInboxService } from './features/inbox/inbox.service.js';
import { SessionService } from './features/accounts/session.service.js';
import { SsoService } from './features/sso/sso.service.js';
import { MemberService } from './features/members/member.service.js';
import { roleMay } from './features/members/permissions.js';
import { AuditService } from './features/audit/audit.service.js';
import { BotCheckService } from './features/bot-checks/bot-check.service.js';
import { SpamFilterService } from './features/spam-filter/spam-filter.service.js';
import { DatabaseCopyService } from './features/database-copy/database-copy.service.js';
import { FileService } from './features/files/file.service.js';
import { createFileStorage } from './features/files/file-storage.factory.js';
import { ConfigAsCodeService } from './features/config-as-code/config.service.js';
import { LocalConfigTarget, type ConfigTransaction } from './features/config-as-code/local-target.js';
import { joinTransaction } from './platform/db/joined-transaction.js';

/** Every domain service, built once per process (or per test app) and shared by HTTP and CLI. */
export interface Services {
  readonly config: Config;
  readonly handle: DatabaseHandle;
  readonly accounts: AccountService;
  readonly apiKeys: ApiKeyService;
  readonly forms: FormService;
  readonly submissions: SubmissionService;
  /** Reading stored submissions (management API and CLI). */
  readonly submissionQueries: SubmissionQueryService;
  /** Marking submissions spam / not spam. */
  readonly triage: SubmissionTriageService;
  /** The team inbox: read, open or done, assignee, tags, notes (docs/dashboard.md). */
  readonly inbox: SubmissionInboxService;
  /** Every deletion of submissions: the dashboard's, retention purge, erasure and form deletion. */
  readonly lifecycle: SubmissionLifecycleService;
  /** The dashboard's search, paging both ways, counters and export. */
  readonly submissionBrowser: SubmissionBrowseService;
  readonly searchIndex: SearchIndexer;
  readonly hooks: HookService;
  /** Chat and push destinations of a form (Slack, Discord, Telegram, Teams, ntfy). */
  readonly integrations: IntegrationService;
  /** Outbound work of every channel (hook deliveries, email, integrations): the queue, its dispatcher, the attempt log. */
  readonly outbox: OutboxService;
  readonly sessions: SessionService;
  /** Each account's audit log: who changed what (docs/teams.md, Audit log). */
  readonly audit: AuditService;
  /** Single sign-on through an OpenID Connect provider (`enabled` false when not configured). */
  readonly sso: SsoService;
  /** This instance's Prometheus metrics (incremented by the services, served on METRICS_PORT). */
  readonly metrics: Metrics;
  readonly notifications: NotificationService;
  readonly passwordResets: PasswordResetService;
  /** An account's email change, confirmed by a link to the new address. */
  readonly emailChanges: EmailChangeService;
  /** Secrets shared by every instance on the database (the cursor signing key). */
  readonly instanceSecrets: InstanceSecretService;
  /** Turnstile, hCaptcha, reCAPTCHA and ALTCHA (docs/bot-checks.md). */
  readonly botChecks: BotCheckService;
  /** The learning filter, one model per account. */
  readonly spamFilter: SpamFilterService;
  readonly suppressions: SuppressionService;
  /** The instance admin's accounts overview and instance settings (sign-up, last purge). */
  readonly admin: AdminService;
  /** Members of accounts, their roles and invitations (docs/teams.md). */
  readonly members: MemberService;
  /** `formgate db copy`: this database into another (SQLite to PostgreSQL or back). */
  readonly databaseCopy: DatabaseCopyService;
  /** Uploaded files: storage, downloads, signed links, removal (docs/files.md). */
  readonly files: FileService;
  /** `formgate plan`, `apply` and `export` (docs/config-as-code.md). */
  readonly configAsCode: ConfigAsCodeService;
  /** This database as what a configuration file is applied to, in one transaction. */
  readonly localConfigTarget: LocalConfigTarget;
  readonly formConfig: FormConfigService;
  readonly apiIdempotency: ApiIdempotencyService;
}

/** Test seams and observers; production passes nothing. */
export interface ServiceOptions {
  hookTransport?: HookTransportOptions;
  mailTransport?: MailTransportOptions;
  onEmailAttempt?: EmailAttemptListener;
  /** The app's Prometheus metrics; a private registry when absent (CLI, tests). */
  metrics?: Metrics;
}

export function createServices(
  handle: DatabaseHandle,
  config: Config,
  logger: FastifyBaseLogger,
  options: ServiceOptions = {},
): Services {
  const metrics = options.metrics ?? createMetrics();
  const audit = new AuditService(handle.db, config.auditRetentionDays);
  const formSecretDefaults = { turnstile: config.turnstileSecretKey, hcaptcha: config.hcaptchaSecretKey, recaptcha: config.recaptchaSecretKey };
  const forms = new FormService(handle.db, formSecretDefaults, Date.now, audit);
  const instanceSecrets = new InstanceSecretService(handle.db);
  const files = new FileService(
    handle,
    config,
    createFileStorage(config.files),
    instanceSecrets,
    logger,
  );
  const sessions = new SessionService(handle.db, audit);
  const fileLinker = () => files.linker();
  // The channels first: they send, and know no service; the outbox drives them; the services
  // that queue, list and send again are built on the outbox.
  const mailer = config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom, options.mailTransport) : undefined;
  const hookSender = new DeliverySender(config.hookTimeoutMs, config.hookAllowPrivateTargets, options.hookTransport);
  const integrationSender = new IntegrationSender(config.hookTimeoutMs, config.hookAllowPrivateTargets, options.hookTransport);
  const channels: OutboxChannel[] = [
    new HookDeliveryChannel(handle, logger, hookSender, metrics, fileLinker),
    new IntegrationChannel(handle, config, logger, integrationSender, metrics, fileLinker, audit),
  ];
  const onEmailAttempt: EmailAttemptListener = (outcome) => {
    metrics.emails.inc({ outcome });
    options.onEmailAttempt?.(outcome);
  };
  if (mailer) channels.push(new EmailChannel(handle, config, mailer, logger, instanceSecrets, onEmailAttempt, fileLinker));
  const outbox = new OutboxService(handle, logger, channels, { leaseMs: config.outboxLeaseMs });
  const notifications = new NotificationService(handle, config, forms, outbox, mailer, audit);
  const integrations = new IntegrationService(handle.db, config, forms, outbox, audit);
  const apiIdempotency = new ApiIdempotencyService(handle.db);
  const lifecycle = new SubmissionLifecycleService(handle, forms, outbox.queue, logger, {
    audit,
    purgeIntervalMs: config.retentionPurgeIntervalMs,
    // The Admin page shows when the purge last ran, whichever instance ran it.
    onPurged: async (deleted) => {
      await recordLastPurge(handle.db, deleted);
      await audit.purgeExpired();
      await apiIdempotency.purgeExpired();
    },
    files,
  });
  // Deleting an account deletes its forms through the lifecycle service first.
  const accounts = new AccountService(
    handle.db,
    config,
    async (accountId) => {
      await lifecycle.deleteFormsOfAccount(accountId);
    },
    audit,
  );
  const hooks = new HookService(handle.db, config, forms, accounts, outbox, audit);
  const admin = new AdminService(handle.db, config, accounts, audit);
  const members = new MemberService(handle, config.baseUrl, accounts, notifications, audit);
  const botChecks = new BotCheckService(handle.db, config, instanceSecrets);
  const spamFilter = new SpamFilterService(handle.db, logger);
  const searchIndex = new SearchIndexer(handle, logger);
  const inbox = new SubmissionInboxService(handle, members, audit, notifications);
  // Only a member who may triage is assigned submissions: losing that (removed, left, made a viewer) clears theirs.
  members.onMembershipChanged((trx, change) => (roleMay(change.role ?? undefined, 'submissions.triage') ? Promise.resolve() : inbox.releaseAssignments(trx, change).then(() => undefined)));
  const wakeOutbox = () => outbox.wake();
  // The services an apply writes through, built again on its transaction so that every write
  // joins it. Only what those writes read and write is rebuilt; the rest is shared.
  const configTransaction: ConfigTransaction = async (run) => {
    await handle.db.transaction().execute(async (trx) => {
      const db = joinTransaction(trx);
      const joinedForms = new FormService(db, formSecretDefaults, Date.now, audit);
      const joinedAccounts = new AccountService(db, config, async () => {}, audit);
      await run({
        forms: joinedForms,
        notifications: new NotificationService({ ...handle, db }, config, joinedForms, outbox, mailer, audit),
        integrations: new IntegrationService(db, config, joinedForms, outbox, audit),
        hooks: new HookService(db, config, joinedForms, joinedAccounts, outbox, audit),
      });
    });
  };
  metrics.setOutboxPendingSource(() => outbox.countPending());
  return {
    config,
    handle,
    accounts,
    admin,
    apiKeys: new ApiKeyService(handle.db, audit),
    forms,
    submissions: new SubmissionService(handle, config, forms, outbox.queue, logger, { botChecks, spamFilter }, searchIndex, files),
    submissionQueries: new SubmissionQueryService(handle.db, forms, new SubmissionCursors(instanceSecrets), inbox),
    inbox,
    triage: new SubmissionTriageService(handle, outbox.queue, spamFilter, audit),
    lifecycle,
    submissionBrowser: new SubmissionBrowseService(handle.db, handle.dialect, forms, inbox, searchIndex, audit),
    searchIndex,
    hooks,
    integrations,
    formConfig: new FormConfigService(forms, notifications, integrations, lifecycle),
    apiIdempotency,
    outbox,
    sessions,
    audit,
    sso: new SsoService(handle.db, config, accounts, admin, members),
    members,
    notifications,
    passwordResets: new PasswordResetService(handle, config, accounts, sessions, notifications, wakeOutbox),
    emailChanges: new EmailChangeService(handle, config, accounts, notifications, wakeOutbox),
    metrics,
    instanceSecrets,
    botChecks,
    spamFilter,
    suppressions: new SuppressionService(handle.db, instanceSecrets),
    databaseCopy: new DatabaseCopyService(handle),
    files,
    configAsCode: new ConfigAsCodeService(),
    localConfigTarget: new LocalConfigTarget({ accounts, forms, notifications, integrations, hooks, lifecycle }, configTransaction),
  };
}
