import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createOwner, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { spawnServer, type ServerProcess } from '../../test/helpers/server-process.js';
import { submitOnce } from './load.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let server: ServerProcess;
let formId: string;

const LIMIT = 60;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  formId = (await createOwner(servicesFor(handle))).form.id;
  server = await spawnServer({
    DATABASE_URL: database.url,
    TRUST_PROXY: 'true',
    SUBMIT_RATE_LIMIT_PER_MINUTE: String(LIMIT),
  });
});

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await handle?.close();
  await database?.drop();
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timedSubmit(ip: string, n: number) {
  const started = performance.now();
  const result = await submitOnce(server.url, formId, { n }, { 'x-forwarded-for': ip });
  return { ...result, ms: performance.now() - started };
}

describe(`submit flood on ${testDialect}`, () => {
  it('2,000 requests from one IP: the per-IP limit holds, others are served as usual', async () => {
    // Usual latency, measured on this machine right before the flood.
    const baseline: number[] = [];
    for (let i = 0; i < 20; i++) baseline.push((await timedSubmit(`198.51.100.${i + 1}`, i)).ms);

    const floodIp = '203.0.113.7';
    const flood: Array<Awaited<ReturnType<typeof timedSubmit>>> = [];
    let sent = 0;
    const flooders = Array.from({ length: 20 }, async () => {
      while (sent < 2000) {
        sent++;
        flood.push(await timedSubmit(floodIp, sent));
      }
    });
    // Meanwhile, other clients keep submitting.
    const others: Array<Awaited<ReturnType<typeof timedSubmit>>> = [];
    const bystander = (async () => {
      for (let i = 0; i < 40; i++) others.push(await timedSubmit(`192.0.2.${(i % 50) + 1}`, i));
    })();
    await Promise.all([...flooders, bystander]);

    expect(flood).toHaveLength(2000);
    const accepted = flood.filter((r) => r.outcome === 200).length;
    const limited = flood.filter((r) => r.outcome === 429).length;
    expect(accepted).toBe(LIMIT);
    expect(limited).toBe(2000 - LIMIT);
    expect(others.every((r) => r.outcome === 200)).toBe(true);

    // Served "within its usual latency": a generous bound, since 20 flooders share 2 cores with us.
    expect(median(others.map((r) => r.ms))).toBeLessThan(Math.max(10 * median(baseline), 250));

    const stored = await handle.db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('form_id', '=', formId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(20 + LIMIT + 40);

    const res = await fetch(`${server.url}/v1/submit/${formId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-forwarded-for': floodIp },
      body: '{}',
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
  });
});
