import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let doc: { openapi: string; paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>> };

beforeAll(async () => {
  t = await startTestApp();
  const res = await fetch(`${t.url}/v1/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => t?.close());

describe('/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists the submit endpoint and every management route', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      [
        'POST /v1/submit/{formId}',
        'OPTIONS /v1/submit/{formId}',
        'GET /v1/challenge/{formId}',
        'OPTIONS /v1/challenge/{formId}',
        'GET /v1/api/me',
        'GET /v1/api/forms',
        'GET /v1/api/forms/{id}/submissions',
        'GET /v1/api/submissions/{id}',
        'GET /v1/api/hooks',
        'POST /v1/api/hooks',
        'DELETE /v1/api/hooks/{id}',
      ].sort(),
    );
  });

  it('marks management routes as Bearer-protected and documents their errors', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        if (path.startsWith('/v1/api/')) {
          expect(op.security).toEqual([{ bearerAuth: [] }]);
          expect(op.responses['401']).toBeDefined();
        }
      }
    }
  });

  it('carries spamReason in the Submission and origin_not_allowed among the error codes', () => {
    const text = JSON.stringify(doc);
    const single = (doc.paths['/v1/api/submissions/{id}'] as any).get.responses['200'].content['application/json'].schema;
    const spamReason = single.properties.submission.properties.spamReason;
    expect(spamReason.enum).toEqual(['honeypot', 'bot_check', 'blocked_term', 'blocked_email', 'too_many_links', 'marked', 'too_fast', 'classifier', null]);
    expect(single.properties.submission.required).toContain('spamReason');
    expect(text).toContain('origin_not_allowed');
  });
});
