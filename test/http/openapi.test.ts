import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';

let t: AppUnderTest;
interface Operation {
  operationId?: string;
  security?: unknown;
  requestBody?: { content: Record<string, unknown> };
  parameters?: Array<{ in: string; name: string }>;
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
}
let doc: {
  openapi: string;
  info: { license?: unknown };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
};
const BASE_URL = 'https://forms.acme.test';
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

beforeAll(async () => {
  t = await buildTestApp({ env: { BASE_URL } });
  const res = await t.fetch('/v1/openapi.json');
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

  it("passes Redocly's recommended lint with no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('names every operation, licenses the API as package.json does and serves it at BASE_URL', () => {
    expect(Object.fromEntries(operations().map(({ name, op }) => [name, op.operationId]))).toEqual({
      'POST /v1/submit/{formId}': 'submitForm',
      'OPTIONS /v1/submit/{formId}': 'submitFormPreflight',
      'GET /v1/challenge/{formId}': 'getAltchaChallenge',
      'OPTIONS /v1/challenge/{formId}': 'getAltchaChallengePreflight',
      'GET /v1/api/me': 'getMe',
      'GET /v1/api/forms': 'listForms',
      'GET /v1/api/forms/{id}/submissions': 'listFormSubmissions',
      'GET /v1/api/submissions/{id}': 'getSubmission',
      'GET /v1/api/files/{id}': 'getFile',
      'GET /v1/files/{id}': 'getFileByLink',
      'GET /v1/api/hooks': 'listHooks',
      'POST /v1/api/hooks': 'createHook',
      'DELETE /v1/api/hooks/{id}': 'deleteHook',
      'POST /v1/api/hooks/{id}/redeliver': 'redeliverHook',
      'GET /v1/api/forms/{id}': 'getForm',
      'POST /v1/api/forms': 'createForm',
      'PATCH /v1/api/forms/{id}': 'updateForm',
      'DELETE /v1/api/forms/{id}': 'deleteForm',
      'GET /v1/api/forms/{id}/integrations': 'listIntegrations',
      'GET /v1/api/forms/{id}/integrations/{integrationId}': 'getIntegration',
      'POST /v1/api/forms/{id}/integrations': 'createIntegration',
      'PATCH /v1/api/forms/{id}/integrations/{integrationId}': 'updateIntegration',
      'DELETE /v1/api/forms/{id}/integrations/{integrationId}': 'deleteIntegration',
    });
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.servers).toEqual([{ url: BASE_URL }]);
  });

  it('declares security on every operation: none on submit, the ALTCHA challenge and signed file links, the Bearer key on the management API', () => {
    for (const { name, op } of operations()) {
      expect(op.security, name).toEqual(name.includes('/v1/submit/') || name.includes('/v1/challenge/') || name.includes('/v1/files/') ? [] : [{ bearerAuth: [] }]);
    }
  });

  it('answers every error in the envelope, with Retry-After on 429, and at least one 4xx everywhere', () => {
    for (const { name, op } of operations()) {
      const errors = Object.entries(op.responses).filter(([status]) => Number(status) >= 400);
      expect(errors.some(([status]) => status.startsWith('4')), name).toBe(true);
      expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['400', '408', '500']));
      for (const [status, response] of errors) {
        expect(response.content?.['application/json']?.schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/ErrorBody' });
      }
      if (op.responses['429']) expect(Object.keys(op.responses['429'].headers ?? {})).toContain('Retry-After');
    }
    const list = doc.paths['/v1/api/forms/{id}/submissions']!.get!;
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '429']));
  });

  it('takes a submission as JSON, urlencoded or multipart', () => {
    const submit = doc.paths['/v1/submit/{formId}']!.post!;
    expect(Object.keys(submit.requestBody?.content ?? {}).sort()).toEqual(
      ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
    );
    expect(Object.keys(submit.responses['400']!.content!).sort()).toEqual(['application/json', 'text/html']);
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
        'GET /v1/api/files/{id}',
        'GET /v1/files/{id}',
        'GET /v1/api/hooks',
        'POST /v1/api/hooks',
        'DELETE /v1/api/hooks/{id}',
        'POST /v1/api/hooks/{id}/redeliver',
        'GET /v1/api/forms/{id}',
        'POST /v1/api/forms',
        'PATCH /v1/api/forms/{id}',
        'DELETE /v1/api/forms/{id}',
        'GET /v1/api/forms/{id}/integrations',
        'GET /v1/api/forms/{id}/integrations/{integrationId}',
        'POST /v1/api/forms/{id}/integrations',
        'PATCH /v1/api/forms/{id}/integrations/{integrationId}',
        'DELETE /v1/api/forms/{id}/integrations/{integrationId}',
      ].sort(),
    );
  });

  it('documents the writes: Idempotency-Key, 400, 403 and 429 on each, If-Match and 412 on changes and deletions, ETag on answers', () => {
    const writes = operations().filter(({ name }) => /^(POST|PATCH|DELETE) \/v1\/api\/forms/.test(name));
    expect(writes).toHaveLength(6);
    for (const { name, op } of writes) {
      const headers = (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
      expect(headers, name).toContain('idempotency-key');
      expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(['400', '401', '403', '404', '429']));
      if (!name.startsWith('POST')) {
        expect(headers, name).toContain('if-match');
        expect(op.responses['412'], name).toBeDefined();
      }
      const success = op.responses[name.startsWith('POST') ? '201' : name.startsWith('PATCH') ? '200' : '204']!;
      expect(success, name).toBeDefined();
      if (!name.startsWith('DELETE')) expect(Object.keys(success.headers ?? {}), name).toContain('ETag');
      if (!name.startsWith('DELETE')) expect(op.requestBody, name).toBeDefined();
    }
  });

  it('documents 401 on every management route', () => {
    for (const { name, op } of operations()) {
      if (name.includes('/v1/api/')) expect(op.responses['401'], name).toBeDefined();
    }
  });

  it('carries spamReason in the Submission and origin_not_allowed among the error codes', () => {
    const text = JSON.stringify(doc);
    const single = (doc.paths['/v1/api/submissions/{id}'] as any).get.responses['200'].content['application/json'].schema;
    const spamReason = single.properties.submission.properties.spamReason;
    expect(spamReason.enum).toEqual(['honeypot', 'bot_check', 'blocked_term', 'blocked_email', 'too_many_links', 'marked', 'too_fast', 'classifier', 'malware', null]);
    expect(single.properties.submission.required).toContain('spamReason');
    expect(text).toContain('origin_not_allowed');
  });
});
