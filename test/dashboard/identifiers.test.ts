import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';

// A NUL byte (or an over-long value) in a dashboard URL or form field is an identifier no row
// can have: PostgreSQL refused the whole query (a 500 and an error log line); now both databases
// answer 404 / 400 and log nothing at error level.
const errorLines: string[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line && (JSON.parse(line) as { level: number }).level >= 50) errorLines.push(line);
    }
    done();
  },
});

let t: AppUnderTest;
let client: DashboardClient;
beforeAll(async () => {
  t = await buildTestApp({ env: { LOG_LEVEL: 'info' }, loggerInstance: pino({ level: 'info' }, logSink) });
  client = new DashboardClient(t);
  await client.signUp('ids@example.com');
});
afterAll(async () => t?.close());

describe('dashboard URLs and fields that no row can match', () => {
  it.each([
    '/dashboard/forms/frm_%00x/settings',
    '/dashboard/forms/frm_%00x/submissions',
    '/dashboard/forms/frm_%00x/export.csv',
    '/dashboard/forms/frm_%00x/export.ndjson',
    '/dashboard/submissions/sub_%00x',
    `/dashboard/submissions/sub_${'x'.repeat(150)}`,
  ])('GET %s is 404', async (path) => {
    const { res, html } = await client.get(path);
    expect(res.status).toBe(404);
    expect(html).toContain('Not found');
    expect(errorLines).toEqual([]);
  });

  it.each(['/dashboard/hooks/hook_%00x/delete', '/dashboard/keys/key_%00x/revoke', '/dashboard/submissions/sub_%00x/delete'])(
    'POST %s is 404',
    async (path) => {
      await client.get('/dashboard/forms');
      const { res } = await client.post(path, {});
      expect(res.status).toBe(404);
      expect(errorLines).toEqual([]);
    },
  );

  it('a NUL byte in the log-in or sign-up email is refused, not a 500', async () => {
    const visitor = new DashboardClient(t);
    await visitor.get('/dashboard/login');
    const login = await visitor.post('/dashboard/login', { email: 'ids\u0000@example.com', password: 'correct horse battery' });
    expect(login.res.status).toBe(400);
    await visitor.get('/dashboard/signup');
    const signup = await visitor.post('/dashboard/signup', { email: 'new\u0000@example.com', displayName: 'X', password: 'correct horse battery' });
    expect(signup.res.status).toBe(400);
    expect(errorLines).toEqual([]);
  });

  it('a NUL byte in a form name is refused with the field named', async () => {
    await client.get('/dashboard/forms');
    const { res, html } = await client.post('/dashboard/forms', { name: 'Contact\u0000' });
    expect(res.status).toBe(400);
    expect(html).toContain('cannot be stored');
    expect(errorLines).toEqual([]);
  });
});
