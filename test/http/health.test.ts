import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('health and unknown routes', () => {
  it('answers /healthz and /readyz', async () => {
    const health = await t.fetch(`/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const ready = await t.fetch(`/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'off' } });
  });

  it('answers an unknown route with the not_found envelope', async () => {
    const res = await t.fetch(`/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not_found', message: expect.stringContaining('/nope') });
  });
});
