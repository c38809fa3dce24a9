import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { buildRequest, sendRaw } from '../helpers/raw-http.js';

/** One case of the bad-input corpus (test/http/corpus/*.json). */
interface CorpusCase {
  name: string;
  method: string;
  path: string;
  headers?: Array<[string, string]>;
  body?: string;
  bodyHex?: string;
  bodyRepeat?: { prefix: string; chunk: string; times: number; suffix: string };
  /** Adds the owner's API key. */
  auth?: boolean;
  /** The server may close the connection without answering (framing it cannot read). */
  allowNoResponse?: boolean;
  expect: {
    status: number;
    error?: string;
    field?: string;
    header?: [string, string];
    noHeader?: string;
    location?: string;
    locationHost?: string;
    storedFields?: Record<string, unknown>;
    /** The whole answer (body) is at most this long: nothing the client sent is echoed at length. */
    maxBodyBytes?: number;
  };
}

const corpusDir = join(import.meta.dirname, 'corpus');
const corpus = readdirSync(corpusDir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ file, cases: JSON.parse(readFileSync(join(corpusDir, file), 'utf8')) as CorpusCase[] }));

let t: TestApp;
let owner: Awaited<ReturnType<typeof createOwner>>;
let placeholders: Record<string, string>;

/** Levels of every log line the server wrote: bad input must never log at error level. */
const logLevels: number[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line) logLevels.push((JSON.parse(line) as { level: number }).level);
    done();
  },
});

beforeAll(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'info' }, loggerInstance: pino({ level: 'info' }, logSink) });
  owner = await createOwner(t.services, { form: { successUrl: 'https://allowed.example.com/thanks' } });
  const inactive = await createForm(t.services, owner.account.id, { isActive: false });
  const locked = await createForm(t.services, owner.account.id, { accessKey: 'sesame' });
  placeholders = { formId: owner.form.id, inactiveFormId: inactive.id, lockedFormId: locked.id };
});
afterAll(async () => t?.close());

const fill = (text: string) => text.replace(/\{(\w+)\}/g, (whole, name: string) => placeholders[name] ?? whole);

function bodyOf(c: CorpusCase): Buffer | undefined {
  if (c.bodyHex !== undefined) return Buffer.from(c.bodyHex, 'hex');
  if (c.bodyRepeat) {
    const { prefix, chunk, times, suffix } = c.bodyRepeat;
    return Buffer.from(prefix + chunk.repeat(times) + suffix, 'utf8');
  }
  return c.body === undefined ? undefined : Buffer.from(fill(c.body), 'utf8');
}

async function countSubmissions(): Promise<number> {
  const row = await t.handle.db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

it('the corpus holds at least 60 cases', () => {
  expect(corpus.reduce((n, f) => n + f.cases.length, 0)).toBeGreaterThanOrEqual(60);
});

for (const { file, cases } of corpus) {
  describe(`bad input corpus: ${file}`, () => {
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const before = await countSubmissions();
      const logLinesBefore = logLevels.length;
      const headers = (c.headers ?? []).map(([k, v]) => [k, fill(v)] as [string, string]);
      if (c.auth) headers.push(['Authorization', `Bearer ${owner.apiKey}`]);
      const res = await sendRaw(
        t.url,
        buildRequest({ method: c.method, path: fill(c.path), host: new URL(t.url).host, headers, body: bodyOf(c) }),
        { halfClose: c.allowNoResponse === true },
      );

      if (!(res.status === 0 && c.allowNoResponse)) {
        expect(res.status, res.body.slice(0, 300)).toBe(c.expect.status);
        if (c.expect.error) {
          const body = JSON.parse(res.body) as { error: string; message: string; fieldErrors?: Record<string, string> };
          expect(body.error).toBe(c.expect.error);
          expect(typeof body.message).toBe('string');
          expect(body.message).not.toMatch(/at .*\.(js|ts):\d+|SQLITE|syntax error at|stack/i);
          if (c.expect.field) expect(Object.keys(body.fieldErrors ?? {})).toContain(c.expect.field);
        }
        if (res.status >= 400 && /json/.test(res.headers['content-type'] ?? '') && c.method !== 'HEAD') {
          // The error envelope and nothing else, whoever raised the error (Fastify included).
          const body = JSON.parse(res.body) as Record<string, unknown>;
          expect(Object.keys(body).filter((k) => !['error', 'message', 'fieldErrors'].includes(k))).toEqual([]);
          expect(Object.keys(errorStatus)).toContain(body.error);
          expect(errorStatus[body.error as keyof typeof errorStatus]).toBe(res.status);
        }
        if (c.expect.maxBodyBytes !== undefined) expect(Buffer.byteLength(res.body)).toBeLessThanOrEqual(c.expect.maxBodyBytes);
        if (c.expect.header) expect(res.headers[c.expect.header[0]]).toBe(c.expect.header[1]);
        if (c.expect.noHeader) expect(res.headers[c.expect.noHeader]).toBeUndefined();
        if (c.expect.location) expect(res.headers.location).toBe(c.expect.location);
        if (c.expect.locationHost) {
          expect(res.headers.location).not.toMatch(/[\r\n]/);
          expect(new URL(res.headers.location!).host).toBe(c.expect.locationHost);
        }
      }

      const stored = res.status >= 200 && res.status < 400 && c.method === 'POST' && c.path.startsWith('/v1/submit/');
      expect(await countSubmissions()).toBe(before + (stored ? 1 : 0));
      if (c.expect.storedFields) {
        const { submissionId } = JSON.parse(res.body) as { submissionId: string };
        const submission = await t.services.submissionQueries.getSubmission(owner.account.id, submissionId);
        for (const [name, value] of Object.entries(c.expect.storedFields)) {
          expect(Object.hasOwn(submission.payload, name)).toBe(true);
          expect(submission.payload[name]).toEqual(value);
        }
        expect(Object.getPrototypeOf({})).toBe(Object.prototype);
        expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      }
      expect(logLevels.slice(logLinesBefore).filter((level) => level >= 50)).toEqual([]);
      // The server is still up and answering.
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    });
  });
}
