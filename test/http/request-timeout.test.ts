import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { slowBodyHead, slowClient, slowHeaderHead } from '../helpers/slow-client.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';

const TIMEOUT_MS = 1000;
let t: TestApp;
let formId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  formId = (await createOwner(t.services)).form.id;
});
afterAll(async () => t?.close());

describe('REQUEST_TIMEOUT_MS', () => {
  it('answers a slow-header and a slow-body client 408 request_timeout and closes them, while others are served', async () => {
    const host = new URL(t.url).host;
    const slow = [
      slowClient(t.url, slowHeaderHead(host, formId), 'X-Slow: 1\r\n', 200, 10_000),
      slowClient(t.url, slowBodyHead(host, formId), 'a', 200, 10_000),
    ];
    // Normal traffic beside them is answered as usual.
    for (let i = 0; i < 5; i++) expect((await submit(t, formId, { json: { i } }, JSON_ACCEPT)).status).toBe(200);
    for (const result of await Promise.all(slow)) {
      expect(result.status).toBe(408);
      expect(JSON.parse(result.body)).toEqual({ error: 'request_timeout', message: expect.any(String) });
      expect(result.closedAfterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(result.closedAfterMs).toBeLessThan(TIMEOUT_MS + 1500);
    }
  });

  it('is read from the environment with the documented default', async () => {
    const { parseConfig } = await import('../../src/platform/config.js');
    expect(parseConfig({}).requestTimeoutMs).toBe(30_000);
    expect(parseConfig({}).shutdownTimeoutMs).toBe(10_000);
    expect(() => parseConfig({ REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });
});
