import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { JSON_ACCEPT, storedSubmission, submit } from '../helpers/submit.js';

async function storedIp(t: TestApp, formId: string, xff: string): Promise<string | null | undefined> {
  const res = await submit(t, formId, { json: { a: 1 } }, { ...JSON_ACCEPT, 'x-forwarded-for': xff });
  expect(res.status).toBe(200);
  const { submissionId } = (await res.json()) as { submissionId: string };
  return (await storedSubmission(t, submissionId))?.ip;
}

async function withApp(env: Record<string, string>, run: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await startTestApp({ env });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

describe('TRUST_PROXY', () => {
  it('parses false, a hop count 1-10 (true = 1) or a list of proxy IPs/CIDRs, and refuses the rest', () => {
    expect(parseConfig({}).trustProxy).toBe(false);
    expect(parseConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(parseConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(parseConfig({ TRUST_PROXY: '3' }).trustProxy).toBe(3);
    expect(parseConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.0.2.1', '::1']);
    for (const bad of ['11', 'all', '10.0.0.0/99', '1.2.3.4,nope']) {
      expect(() => parseConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
  });

  it('true (one hop): a client rotating X-Forwarded-For is still limited by the address the proxy saw', async () => {
    await withApp({ TRUST_PROXY: 'true', SUBMIT_RATE_LIMIT_PER_MINUTE: '5' }, async (t) => {
      const { form } = await createOwner(t.services);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        // What the client wrote, then what the one trusted proxy appended.
        const xff = `10.${i}.${i}.${i}, 198.51.100.${i + 1}, 203.0.113.9`;
        const res = await submit(t, form.id, { json: { i } }, { ...JSON_ACCEPT, 'x-forwarded-for': xff });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array(5).fill(200), ...Array(15).fill(429)]);
    });
  });

  it('an IPv6 client rotating addresses inside its /64 is one client for the limits', async () => {
    await withApp({ TRUST_PROXY: '1', SUBMIT_RATE_LIMIT_PER_MINUTE: '3' }, async (t) => {
      const { form } = await createOwner(t.services);
      const statuses: number[] = [];
      for (let i = 1; i <= 6; i++) {
        const res = await submit(t, form.id, { json: { i } }, { ...JSON_ACCEPT, 'x-forwarded-for': `2001:db8:1:2::${i.toString(16)}:${i}` });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
      // Another /64 is another client.
      expect((await submit(t, form.id, { json: { x: 1 } }, { ...JSON_ACCEPT, 'x-forwarded-for': '2001:db8:1:3::1' })).status).toBe(200);
    });
  });

  it('never stores a forwarded value that is not an IP address', async () => {
    await withApp({ TRUST_PROXY: '2' }, async (t) => {
      const { form } = await createOwner(t.services);
      const html = `<b onmouseover=alert(1)>${'x'.repeat(12_000)}</b>`;
      expect(await storedIp(t, form.id, html)).toBe('127.0.0.1');
      expect(await storedIp(t, form.id, `198.51.100.7, ${html}`)).toBe('127.0.0.1');
      // Past the non-IP entry only addresses written by proxies remain.
      expect(await storedIp(t, form.id, `${html}, 198.51.100.7, 192.0.2.1`)).toBe('198.51.100.7');
      expect(await storedIp(t, form.id, '198.51.100.8')).toBe('198.51.100.8');
    });
  });

  it('a list of proxies: the right-most address that is not one of them', async () => {
    await withApp({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }, async (t) => {
      const { form } = await createOwner(t.services);
      expect(await storedIp(t, form.id, '192.0.2.50, 198.51.100.1, 10.1.2.3, 10.9.9.9')).toBe('198.51.100.1');
    });
  });
});
