import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';

const LIMIT = 5;
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
});
afterAll(async () => t?.close());

/** POSTs to `count` form IDs nobody created, `concurrency` at a time over keep-alive. */
async function spray(count: number, concurrency = 32): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const res = await fetch(`${t.url}/v1/submit/frm_${randomUUID().replaceAll('-', '')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...JSON_ACCEPT },
          body: '{}',
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

describe('submit rate limit cannot be walked around (in-process counters)', () => {
  it('5,001 invented form IDs do not reset the counter of the form under attack', async () => {
    const { form } = await createOwner(t.services);
    const before: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) before.push((await submit(t, form.id, { json: { i } }, JSON_ACCEPT)).status);
    expect(before).toEqual([...Array(LIMIT).fill(200), 429]);

    const sprayed = await spray(5001);
    // Unknown forms share one counter per client: the first few are 404, the rest 429.
    expect(sprayed.get(404)).toBe(LIMIT);
    expect(sprayed.get(429)).toBe(5001 - LIMIT);

    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push((await submit(t, form.id, { json: { i } }, JSON_ACCEPT)).status);
    expect(after).toEqual(Array(10).fill(429));
    expect(await countStored(t, form.id)).toBe(LIMIT);
  }, 60_000);

  it('counts requests that fail validation: after 5 malformed bodies a valid one is 429', async () => {
    const { form } = await createOwner(t.services);
    for (let i = 0; i < LIMIT; i++) {
      const res = await submit(t, form.id, { raw: '{not json', contentType: 'application/json' }, JSON_ACCEPT);
      expect(res.status).toBe(400);
    }
    const res = await submit(t, form.id, { json: { ok: 1 } }, JSON_ACCEPT);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await countStored(t, form.id)).toBe(0);
  });

  it('answers an impossible form ID (NUL byte, over-long) 404 while the limiter is on, never 500', async () => {
    // Its own app: the spray above used up this client's counter for unknown forms.
    const fresh = await startTestApp({ env: { SUBMIT_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
    try {
      for (const id of ['frm_%00x', `frm_${'a'.repeat(500)}`]) {
        const res = await fetch(`${fresh.url}/v1/submit/${id}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...JSON_ACCEPT },
          body: '{}',
        });
        expect(res.status).toBe(404);
        expect(await res.json()).toMatchObject({ error: 'not_found' });
      }
    } finally {
      await fresh.close();
    }
  });
});
