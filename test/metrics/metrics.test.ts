import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/platform/config.js';
import { startMetricsServer, type MetricsServer } from '../../src/platform/metrics/metrics-server.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;
let metricsServer: MetricsServer;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await buildTestApp({
    // METRICS_PORT turns metrics on; the test serves them itself on a port of its choosing.
    env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000', METRICS_PORT: '0' },
    hookTransport: { ca: receiver.ca },
  });
  metricsServer = await startMetricsServer(t.services.metrics, '127.0.0.1', 0);
});
afterAll(async () => {
  await metricsServer?.close();
  await t?.close();
  await receiver?.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample, e.g. sample(text, 'formgate_submissions_total{outcome="spam"}'). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series}`);
  return Number(line.slice(series.length + 1));
}

describe('Prometheus metrics', () => {
  it('count an accepted, a spam and a rejected submit, time them, and count a hook delivery', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    const before = await scrape();
    const hook = await t.fetch('/v1/api/hooks', {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}/in` }),
    });
    expect(hook.status).toBe(201);

    expect((await submit(t, owner.form.id, { json: { email: 'a@example.com' } }, JSON_ACCEPT)).status).toBe(200);
    const spam = await submit(t, owner.form.id, { json: { email: 'b@example.com', _gotcha: 'bot' } }, JSON_ACCEPT);
    expect(await spam.json()).toMatchObject({ ok: true, filtered: 'spam' });
    expect((await submit(t, 'frm_doesnotexist00', { json: { email: 'c@example.com' } }, JSON_ACCEPT)).status).toBe(404);
    expect((await submit(t, owner.form.id, { raw: 'x', contentType: 'text/plain' }, JSON_ACCEPT)).status).toBe(400);
    // A preflight is not a submission.
    expect((await t.fetch(`/v1/submit/${owner.form.id}`, { method: 'OPTIONS' })).status).toBe(204);

    await waitFor(() => receiver.received.length >= 1, 15_000, 'the hook delivery');
    let after = '';
    await waitFor(async () => {
      after = await scrape();
      return sample(after, 'formgate_hook_deliveries_total{outcome="sent"}') === sample(before, 'formgate_hook_deliveries_total{outcome="sent"}') + 1;
    }, 15_000, 'the delivery to be counted');

    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('formgate_submissions_total{outcome="accepted"}')).toBe(1);
    expect(delta('formgate_submissions_total{outcome="spam"}')).toBe(1);
    expect(delta('formgate_submissions_total{outcome="rejected"}')).toBe(2);
    expect(delta('formgate_submit_duration_seconds_count')).toBe(4);
    expect(delta('formgate_submit_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sample(after, 'formgate_submit_duration_seconds_bucket{le="+Inf"}')).toBe(sample(after, 'formgate_submit_duration_seconds_count'));
    expect(delta('formgate_hook_deliveries_total{outcome="failed"}')).toBe(0);
    // Defined for the email sender; nothing sent here.
    expect(sample(after, 'formgate_emails_total{outcome="sent"}')).toBe(0);
    expect(after).toContain('# TYPE formgate_submit_duration_seconds histogram');
    expect(after).toContain('# TYPE formgate_outbox_pending gauge');
    // prom-client's process defaults.
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(after).toContain('nodejs_eventloop_lag_seconds');
  });

  it('count integration attempts by kind and outcome', async () => {
    const owner = await createOwner(t.services);
    const before = await scrape();
    expect(sample(before, 'formgate_integration_deliveries_total{kind="ntfy",outcome="retry"}')).toBe(0);
    receiver.respond((req, res) => res.writeHead(req.url === '/m-gone' ? 404 : 200).end('x'));
    try {
      await t.services.integrations.addIntegration(owner.form.id, { kind: 'slack', url: `${receiver.url}/m-ok` });
      await t.services.integrations.addIntegration(owner.form.id, { kind: 'teams', url: `${receiver.url}/m-gone` });
      expect((await submit(t, owner.form.id, { json: { n: 1 } }, JSON_ACCEPT)).status).toBe(200);
      let after = '';
      const delta = (series: string) => sample(after, series) - sample(before, series);
      await waitFor(async () => {
        after = await scrape();
        return delta('formgate_integration_deliveries_total{kind="slack",outcome="sent"}') === 1 && delta('formgate_integration_deliveries_total{kind="teams",outcome="disabled"}') === 1;
      }, 15_000, 'both attempts counted');
      expect(delta('formgate_integration_deliveries_total{kind="slack",outcome="failed"}')).toBe(0);
      expect(delta('formgate_integration_deliveries_total{kind="teams",outcome="sent"}')).toBe(0);
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
    }
  });

  it('counts failed deliveries and reads the outbox size from the database when scraped', async () => {
    const owner = await createOwner(t.services, { planId: 'pro' });
    const held: Array<() => void> = [];
    receiver.respond((_req, res) => held.push(() => res.writeHead(500).end('no')));
    try {
      const hook = await t.fetch('/v1/api/hooks', {
        method: 'POST',
        headers: { ...owner.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}/held` }),
      });
      expect(hook.status).toBe(201);
      const before = await scrape();
      for (let i = 0; i < 3; i++) expect((await submit(t, owner.form.id, { json: { n: i } }, JSON_ACCEPT)).status).toBe(200);
      // Three deliveries are out (held by the receiver) or queued: the gauge counts them.
      await waitFor(async () => sample(await scrape(), 'formgate_outbox_pending') === 3, 15_000, 'three pending deliveries');
      await waitFor(() => held.length === 3, 15_000, 'three held deliveries');
      for (const release of held.splice(0)) release();
      let after = '';
      await waitFor(async () => {
        after = await scrape();
        return sample(after, 'formgate_outbox_pending') === 0;
      }, 15_000, 'an empty outbox');
      await waitFor(async () => {
        after = await scrape();
        return sample(after, 'formgate_hook_deliveries_total{outcome="failed"}') - sample(before, 'formgate_hook_deliveries_total{outcome="failed"}') === 3;
      }, 15_000, 'three failed deliveries counted');
    } finally {
      receiver.respond((_req, res) => res.writeHead(200).end('ok'));
      for (const release of held.splice(0)) release();
    }
  });

  it('answers 404 outside /metrics, and every app has its own registry', async () => {
    expect((await fetch(`http://127.0.0.1:${metricsServer.port}/`)).status).toBe(404);
    const other = await buildTestApp({ env: { METRICS_PORT: '0' } });
    try {
      const owner = await createOwner(other.services);
      const before = sample(await scrape(), 'formgate_submissions_total{outcome="accepted"}');
      expect((await submit(other, owner.form.id, { json: { a: 1 } }, JSON_ACCEPT)).status).toBe(200);
      expect(sample(await other.services.metrics.registry!.metrics(), 'formgate_submissions_total{outcome="accepted"}')).toBe(1);
      expect(sample(await scrape(), 'formgate_submissions_total{outcome="accepted"}')).toBe(before);
    } finally {
      await other.close();
    }
  });
});

describe('METRICS_PORT', () => {
  it('unset: metrics are off (nothing collected, nothing to serve) and submits work as usual', async () => {
    const off = await buildTestApp();
    try {
      const owner = await createOwner(off.services);
      expect((await submit(off, owner.form.id, { json: { a: 1 } }, JSON_ACCEPT)).status).toBe(200);
      expect(off.services.metrics.registry).toBeUndefined();
      await expect(startMetricsServer(off.services.metrics, '127.0.0.1', 0)).rejects.toThrow(/metrics are off/);
    } finally {
      await off.close();
    }
  });

  it('is off when unset or empty, a port when set, and a configuration error otherwise', () => {
    expect(parseConfig({}).metricsPort).toBeUndefined();
    expect(parseConfig({ METRICS_PORT: '' }).metricsPort).toBeUndefined();
    expect(parseConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => parseConfig({ METRICS_PORT: '70000' })).toThrow(ConfigError);
    expect(() => parseConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
  });
});
