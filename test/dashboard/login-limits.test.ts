import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';

// One trusted proxy hop, so each attempt can come from its own client address.
let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp({ env: { TRUST_PROXY: '1' } });
});
afterAll(async () => t?.close());

let nextAddress = 1;
const freshAddress = () => ({ 'x-forwarded-for': `198.51.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}` });

async function logIn(client: DashboardClient, email: string, password: string, headers: Record<string, string>) {
  // CPU time, not wall time: the app runs in this process, so its scrypt work (on libuv's threads)
  // is counted here, while other processes loading the machine are not.
  const started = process.cpuUsage();
  const { res } = await client.post('/dashboard/login', { email, password }, { headers });
  const used = process.cpuUsage(started);
  return { status: res.status, cpuMs: (used.user + used.system) / 1000, retryAfter: res.headers.get('retry-after') };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('log-in limits', () => {
  it('10 failed attempts per account email in 15 minutes, from any addresses; then 429 even for the right password', async () => {
    await t.services.accounts.createAccount({ email: 'victim@example.com', password: 'the right password' });
    const client = new DashboardClient(t);
    await client.get('/dashboard/login');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await logIn(client, 'Victim@example.com', `guess ${i}`, freshAddress())).status);
    expect(statuses).toEqual(Array(10).fill(401));
    const locked = await logIn(client, 'victim@example.com', 'the right password', freshAddress());
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(60);
    // Another account is not affected.
    await t.services.accounts.createAccount({ email: 'other@example.com', password: 'the right password' });
    expect((await logIn(client, 'other@example.com', 'the right password', freshAddress())).status).toBe(303);
  });

  it('successful log-ins do not count: 12 in a row from one address all succeed', async () => {
    await t.services.accounts.createAccount({ email: 'regular@example.com', password: 'the right password' });
    const address = freshAddress();
    for (let i = 0; i < 12; i++) {
      const client = new DashboardClient(t);
      await client.get('/dashboard/login');
      expect((await logIn(client, 'regular@example.com', 'the right password', address)).status).toBe(303);
    }
  });

  it('an unknown email costs the same work as a wrong password', async () => {
    await t.services.accounts.createAccount({ email: 'known@example.com', password: 'the right password' });
    const client = new DashboardClient(t);
    await client.get('/dashboard/login');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push((await logIn(client, 'known@example.com', `wrong ${i}`, freshAddress())).cpuMs);
      unknown.push((await logIn(client, `nobody${i}@example.com`, `wrong ${i}`, freshAddress())).cpuMs);
    }
    // scrypt dominates both; without the dummy hash an unknown email would be answered ~30x faster.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.6);
  });

  it('two sign-ups racing for one email: one account, the other a validation error (never 500)', async () => {
    const clients = [new DashboardClient(t), new DashboardClient(t)];
    await Promise.all(clients.map((c) => c.get('/dashboard/signup')));
    const answers = await Promise.all(
      clients.map((c) => c.post('/dashboard/signup', { email: 'race@example.com', displayName: 'R', password: 'long enough pw' }, { headers: freshAddress() })),
    );
    expect(answers.map((a) => a.res.status).sort()).toEqual([303, 400]);
    expect(answers.find((a) => a.res.status === 400)!.html).toContain('already');
    const rows = await t.handle.db.selectFrom('accounts').select('id').where('email', '=', 'race@example.com').execute();
    expect(rows).toHaveLength(1);
  });
});
