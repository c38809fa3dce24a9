import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';

export type SubmitOutcome = 'accepted' | 'spam' | 'rejected';
/** `gone`: the target answered 410 and its subscription was removed. */
export type HookDeliveryOutcome = 'sent' | 'failed' | 'gone';
/** `sent`; `retry`: a temporary failure, tried again later; `failed`: given up. */
export type EmailOutcome = 'sent' | 'retry' | 'bounced' | 'failed';

/** `sent`; `retry`: tried again later; `failed`: given up; `disabled`: the platform refused the target (401/403/404/410). */
export type IntegrationOutcome = 'sent' | 'retry' | 'failed' | 'disabled';

export interface OutcomeCounter<Outcome extends string> {
  inc(labels: { outcome: Outcome }, value?: number): void;
}

/**
 * The Prometheus metrics of one app instance, each in its own registry, so that tests can build
 * several apps in one process. Services receive it and only increment; nothing here awaits on the
 * submit path. The outbox gauge is read from the database when scraped. When metrics are off
 * (METRICS_PORT unset) every metric is a no-op and prom-client is never loaded.
 */
export interface Metrics {
  /** Undefined when metrics are off. */
  readonly registry: Registry | undefined;
  readonly submissions: OutcomeCounter<SubmitOutcome>;
  readonly submitDuration: { observe(seconds: number): void };
  readonly hookDeliveries: OutcomeCounter<HookDeliveryOutcome>;
  readonly emails: OutcomeCounter<EmailOutcome>;
  readonly integrationDeliveries: { inc(labels: { kind: string; outcome: IntegrationOutcome }, value?: number): void };
  /** Tells the outbox gauge how to count what is queued (set once the services exist). */
  setOutboxPendingSource(count: () => Promise<number>): void;
}

export interface MetricsOptions {
  /** Collect metrics at all (the app: when METRICS_PORT is set). */
  enabled?: boolean;
  /**
   * Add prom-client's process metrics (CPU, memory, event loop lag, GC). The app does; services
   * built for a CLI command or a test factory need not start their observers.
   */
  processMetrics?: boolean;
}

const ignore = { inc: () => {}, observe: () => {} };

export function createMetrics(options: MetricsOptions = {}): Metrics {
  if (!options.enabled) {
    return { registry: undefined, submissions: ignore, submitDuration: ignore, hookDeliveries: ignore, emails: ignore, integrationDeliveries: ignore, setOutboxPendingSource: () => {} };
  }
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = createRequire(import.meta.url)('prom-client') as typeof import('prom-client');
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  let countOutboxPending: (() => Promise<number>) | undefined;

  const submissions = new Counter({
    name: 'formgate_submissions_total',
    help: 'Submit requests answered, by outcome: accepted, spam (stored, filtered) or rejected (an error answer).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const submitDuration = new Histogram({
    name: 'formgate_submit_duration_seconds',
    help: 'Time to answer a submit request, from its first byte to the response.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const hookDeliveries = new Counter({
    name: 'formgate_hook_deliveries_total',
    help: 'Hook delivery attempts, by outcome: sent (2xx), failed, or gone (410, subscription removed).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const emails = new Counter({
    name: 'formgate_emails_total',
    help: 'Email attempts, by outcome: sent, retry (temporary failure), bounced (5xx for the recipient) or failed (given up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const integrationDeliveries = new Counter({
    name: 'formgate_integration_deliveries_total',
    help: 'Integration message attempts, by kind and outcome: sent, retry (tried again later), failed (given up) or disabled (401/403/404/410).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'formgate_outbox_pending',
    help: 'Outbound work not yet done: outbox rows not yet expanded, plus hook deliveries and emails queued or in flight.',
    registers: [registry],
    async collect() {
      if (countOutboxPending) this.set(await countOutboxPending());
    },
  });
  // Outcomes show up as 0 before the first event, so rate() and alerts work from the start.
  for (const outcome of ['accepted', 'spam', 'rejected'] satisfies SubmitOutcome[]) submissions.inc({ outcome }, 0);
  for (const outcome of ['sent', 'failed', 'gone'] satisfies HookDeliveryOutcome[]) hookDeliveries.inc({ outcome }, 0);
  for (const outcome of ['sent', 'retry', 'bounced', 'failed'] satisfies EmailOutcome[]) emails.inc({ outcome }, 0);
  for (const kind of ['slack', 'discord', 'telegram', 'teams', 'ntfy']) {
    for (const outcome of ['sent', 'retry', 'failed', 'disabled'] satisfies IntegrationOutcome[]) integrationDeliveries.inc({ kind, outcome }, 0);
  }

  return {
    registry,
    submissions,
    submitDuration,
    hookDeliveries,
    emails,
    integrationDeliveries,
    setOutboxPendingSource: (count) => {
      countOutboxPending = count;
    },
  };
}
