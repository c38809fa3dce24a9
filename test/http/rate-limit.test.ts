import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function hit(t: AppUnderTest, auth: Record<string, string>, n: number): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < n; i++) responses.push(await t.fetch('/v1/api/me', { headers: auth }));
  return responses;
}

describe('management API rate limit (120 a minute per key)', () => {
  let t: AppUnderTest;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('sends RateLimit-* headers on every response and 429 rate_limited with Retry-After on the 121st', async () => {
    const { auth } = await createOwner(t.services);
    const ok = await hit(t, auth, 120);
    expect(ok.every((r) => r.status === 200)).toBe(true);
    expect(ok[0]!.headers.get('ratelimit-limit')).toBe('120');
    expect(ok[0]!.headers.get('ratelimit-remaining')).toBe('119');
    expect(Number(ok[0]!.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(ok[119]!.headers.get('ratelimit-remaining')).toBe('0');
    const [limited] = await hit(t, auth, 1);
    expect(limited!.status).toBe(429);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited!.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
    // Another key of the same server is not affected.
    const other = await createOwner(t.services);
    expect((await hit(t, other.auth, 1))[0]!.status).toBe(200);
  });
});

describe('the management API limits count every request', () => {
  let t: AppUnderTest;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t?.close());

  it('150 requests failing validation (?limit=0): 120 answered 400, then 429', async () => {
    const { auth, form } = await createOwner(t.services);
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) {
      const res = await t.fetch(`/v1/api/forms/${form.id}/submissions?limit=0`, { headers: auth });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(120).fill(400), ...Array(30).fill(429)]);
  });

  it('requests without a valid key: 30 a minute per client address answered 401, then 429', async () => {
    const statuses: number[] = [];
    const headers: Array<Record<string, string>> = [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer fgk_not_a_real_key' }];
    for (let i = 0; i < 36; i++) {
      const res = await t.fetch('/v1/api/me', { headers: headers[i % 3] });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(30).fill(401), ...Array(6).fill(429)]);
    // A valid key from the same address is counted on its own.
    const { auth } = await createOwner(t.services);
    expect((await t.fetch('/v1/api/me', { headers: auth })).status).toBe(200);
  });
});

describe('shared through Redis', () => {
  let a: AppUnderTest;
  let b: AppUnderTest;
  beforeAll(async () => {
    a = await buildTestApp({ env: { REDIS_URL: redisUrl } });
    b = await buildTestApp({ env: { REDIS_URL: redisUrl }, database: a.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('two instances count one key together: 60 on each, then the 121st is refused on either', async () => {
    const { auth } = await createOwner(a.services);
    const first = await hit(a, auth, 60);
    const second = await hit(b, auth, 60);
    expect([...first, ...second].every((r) => r.status === 200)).toBe(true);
    expect(second[59]!.headers.get('ratelimit-remaining')).toBe('0');
    expect((await hit(a, auth, 1))[0]!.status).toBe(429);
    expect((await hit(b, auth, 1))[0]!.status).toBe(429);
  });
});
