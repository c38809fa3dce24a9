import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifySchema } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiResponseChecker } from '../helpers/openapi-responses.js';

// The checker every test app carries must catch what it is there to catch: a small Fastify app
// whose routes answer against their own declared schemas in each way the checker looks at.
let app: FastifyInstance;
let checker: OpenApiResponseChecker;

const thing = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } as const;
/** Declares only 200, so that answering anything else is the route's mistake to catch. */
const onlyOk: FastifySchema = { response: { 200: thing } };

beforeAll(async () => {
  app = Fastify({ logger: false });
  checker = new OpenApiResponseChecker(app);
  checker.install(app);
  await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
  app.get('/v1/api/thing', { schema: { response: { 200: thing } } }, async () => ({ name: 'ok' }));
  // No response schema serializes the body: a name of the wrong type goes out as is.
  app.get('/v1/api/bad-body', { schema: { response: { 200: { description: 'x', content: { 'application/json': { schema: thing } } } } } }, async (_r, reply) =>
    reply.type('application/json').send(JSON.stringify({ name: 7 })),
  );
  app.get('/v1/api/teapot', { schema: onlyOk }, async (_r, reply) => reply.code(418).send({ name: 'x' }));
  app.get('/v1/api/text', { schema: { response: { 200: thing } } }, async (_r, reply) => reply.type('text/plain').send('name'));
  app.delete('/v1/api/thing', { schema: { response: { 204: { type: 'null' } } } }, async (_r, reply) => reply.code(204).send());
  app.get('/elsewhere', { schema: onlyOk }, async (_r, reply) => reply.code(418).send('no'));
  await app.ready();
});
afterAll(async () => app?.close());

describe('the OpenAPI response checker of the test apps', () => {
  it('passes answers that match and ignores routes outside the API and unknown ones', async () => {
    expect((await app.inject('/v1/api/thing')).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/v1/api/thing' })).statusCode).toBe(204);
    expect((await app.inject('/elsewhere')).statusCode).toBe(418);
    expect((await app.inject('/v1/api/nothing-here')).statusCode).toBe(404);
    expect(checker.failures).toEqual([]);
    expect(checker.checked).toBe(2);
    expect(() => checker.assertNoMismatch()).not.toThrow();
  });

  it('reports a body off its schema, an undocumented status and an undocumented Content-Type', async () => {
    await app.inject('/v1/api/bad-body');
    await app.inject('/v1/api/teapot');
    await app.inject('/v1/api/text');
    expect(checker.failures).toEqual([
      expect.stringMatching(/^GET \/v1\/api\/bad-body → 200: .*name must be string/),
      'GET /v1/api/teapot → 418: status 418 is not documented',
      'GET /v1/api/text → 200: Content-Type text/plain is not one of application/json',
    ]);
    expect(() => checker.assertNoMismatch()).toThrow(/not matching \/v1\/openapi\.json/);
  });
});
