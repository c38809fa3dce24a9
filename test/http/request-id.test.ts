import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createOwner } from '../helpers/factories.js';
import { sendRaw } from '../helpers/raw-http.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';

interface LogLine {
  requestId?: string;
  msg: string;
  [key: string]: unknown;
}

const lines: LogLine[] = [];
let t: TestApp;

/** A pino logger whose JSON lines land in `lines`. */
function capturingLogger() {
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return pino({ level: 'info' }, capture);
}

beforeAll(async () => {
  t = await startTestApp({ loggerInstance: capturingLogger() });
});
afterAll(async () => t?.close());

const logsOf = (requestId: string) => lines.filter((l) => l.requestId === requestId);

describe('X-Request-Id', () => {
  it("echoes the client's ID and puts it on every log line of the request", async () => {
    const owner = await createOwner(t.services);
    const id = 'client-id 42/abc';
    const res = await submit(t, owner.form.id, { json: { a: 1 } }, { ...JSON_ACCEPT, 'x-request-id': id });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    expect(logsOf(id).map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
  });

  it('makes a new ID when the client sent none, or one that is too long or not printable', async () => {
    const ids = new Set<string>();
    for (const sent of [undefined, 'x'.repeat(129), 'tab\there', 'é-non-ascii']) {
      const headers: Record<string, string> = sent === undefined ? {} : { 'x-request-id': sent };
      const res = await fetch(`${t.url}/healthz`, { headers });
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(logsOf(id)).toHaveLength(2);
      ids.add(id);
    }
    expect(ids.size).toBe(4);
    // 128 printable characters are the client's to choose.
    const longest = 'y'.repeat(128);
    expect((await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': longest } })).headers.get('x-request-id')).toBe(longest);
  });

  it('is on error answers, 404s, the API, the dashboard and the / redirect', async () => {
    const owner = await createOwner(t.services);
    const answers = await Promise.all([
      fetch(`${t.url}/nowhere`),
      fetch(`${t.url}/v1/api/forms`),
      fetch(`${t.url}/v1/api/forms`, { headers: owner.auth }),
      fetch(`${t.url}/dashboard/login`),
      fetch(`${t.url}/`, { redirect: 'manual' }),
      fetch(`${t.url}/v1/submit/${owner.form.id}`, { method: 'GET' }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([404, 401, 200, 200, 302, 405]);
    for (const res of answers) expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(answers[4]!.headers.get('location')).toBe('/dashboard');
    // Even a request the HTTP parser refuses gets one.
    const raw = await sendRaw(t.url, Buffer.from('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'));
    expect(raw.status).toBe(400);
    expect(raw.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is in a 500 body, which still hides what went wrong, and in the error log line', async () => {
    const broken = await startTestApp({ loggerInstance: capturingLogger() });
    try {
      const owner = await createOwner(broken.services);
      const browser = new DashboardClient(broken.url);
      await createAccount(broken.services, { email: 'owner500@example.com', password: 'correct horse battery' });
      await browser.get('/dashboard/login');
      expect((await browser.post('/dashboard/login', { email: 'owner500@example.com', password: 'correct horse battery' })).res.status).toBe(303);
      // A table the API needs goes missing: the one way to a 500 that is not a bug to fix.
      await sql`drop table forms cascade`.execute(broken.handle.db).catch(async () => sql`drop table forms`.execute(broken.handle.db));
      const res = await fetch(`${broken.url}/v1/api/forms`, { headers: { ...owner.auth, 'x-request-id': 'report-me-1' } });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('report-me-1');
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({ error: 'internal_error', message: 'Something went wrong on our side.', requestId: 'report-me-1' });
      expect(logsOf('report-me-1').some((l) => l.level === 50 && l.msg === 'request failed')).toBe(true);
      // The dashboard's error page names the request too.
      const page = await fetch(`${broken.url}/dashboard/forms`, {
        headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'x-request-id': 'page-500' },
      });
      expect(page.status).toBe(500);
      expect(await page.text()).toContain('Request ID: page-500');
    } finally {
      await broken.close();
    }
  });
});
