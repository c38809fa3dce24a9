import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

const LIMIT = 5;
let redis: PrivateRedis;
let t: AppUnderTest;

beforeAll(async () => {
  redis = await startPrivateRedis();
  t = await buildTestApp({ env: { REDIS_URL: redis.url, SUBMIT_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

const readiness = async () => {
  const res = await t.fetch('/readyz');
  return { status: res.status, body: (await res.json()) as { status: string; checks: { database: string; redis: string } } };
};

describe('Redis outage', () => {
  it('serves submit, API and log-in while Redis is down, limits per process meanwhile, and returns to Redis', async () => {
    const owner = await createOwner(t.services);
    await t.services.accounts.createAccount({ email: 'owner-login@example.com', password: 'the right password' });
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok', redis: 'ok' } } });
    expect((await submit(t, owner.form.id, { json: { before: 1 } }, JSON_ACCEPT)).status).toBe(200);

    await redis.stop();
    await waitFor(async () => (await readiness()).body.checks.redis === 'down', 5000, 'readyz to see Redis down');
    expect(await readiness()).toEqual({ status: 200, body: { status: 'degraded', checks: { database: 'ok', redis: 'down' } } });

    // Submissions: accepted and stored; the limit still holds, counted in this process.
    const during: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) during.push((await submit(t, owner.form.id, { json: { during: i } }, JSON_ACCEPT)).status);
    expect(during).toEqual([...Array(LIMIT).fill(200), 429, 429]);
    expect(await countStored(t, owner.form.id)).toBe(1 + LIMIT);

    // Management API and dashboard log-in.
    expect((await t.fetch('/v1/api/me', { headers: owner.auth })).status).toBe(200);
    const client = new DashboardClient(t);
    await client.get('/dashboard/login');
    expect((await client.post('/dashboard/login', { email: 'owner-login@example.com', password: 'wrong' })).res.status).toBe(401);
    expect((await client.post('/dashboard/login', { email: 'owner-login@example.com', password: 'the right password' })).res.status).toBe(303);

    // Redis is back: readiness says so and the counters live in Redis again.
    await redis.start();
    await waitFor(async () => (await readiness()).body.status === 'ok', 10_000, 'readyz to see Redis back');
    const other = await createForm(t.services, owner.account.id);
    const direct = new Redis(redis.url);
    try {
      // Counters stay in the process for up to a second after Redis last failed a call.
      const countedInRedis = async () =>
        (await submit(t, other.id, { json: { after: 1 } }, JSON_ACCEPT)).status === 200 && Number(await direct.get(`submit:127.0.0.1|${other.id}`)) >= 1;
      await waitFor(countedInRedis, 5000, 'a submit counted in Redis again');
    } finally {
      direct.disconnect();
    }
  });
});
