import { Readable } from 'node:stream';
import { appendFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Checks every answer of the submit endpoint and the management API that a test provokes against
 * /v1/openapi.json: the status must be documented for the operation, the Content-Type one of that
 * response's media types, and the body valid against its schema. Mismatches are collected, not
 * thrown (the answer goes out unchanged); the test app's close() fails on them.
 */
const CHECKED_PREFIXES = ['/v1/submit/', '/v1/api/'];
const DOCUMENT_ID = 'formgate-openapi';

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class OpenApiResponseChecker {
  readonly failures: string[] = [];
  checked = 0;
  undocumented = 0;
  private ajv: Ajv2020 | undefined;
  private document: OpenApiDocument | undefined;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly app: FastifyInstance) {}

  /** The onSend hook: never changes the answer. */
  install(app: FastifyInstance): void {
    app.addHook('onSend', async (request, reply, payload) => {
      try {
        this.check(request, reply, payload);
      } catch (err) {
        this.fail(request, reply, `checker error: ${(err as Error).message}`);
      }
      return payload;
    });
  }

  private load(): { ajv: Ajv2020; document: OpenApiDocument } {
    if (!this.ajv || !this.document) {
      this.document = this.app.swagger() as unknown as OpenApiDocument;
      // OpenAPI keywords (example, discriminator…) are not JSON Schema's: not strict.
      this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
      addFormats.default(this.ajv);
      this.ajv.addSchema(structuredClone(this.document) as object, DOCUMENT_ID);
    }
    return { ajv: this.ajv, document: this.document };
  }

  private check(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const path = request.url.split('?')[0]!;
    if (!CHECKED_PREFIXES.some((prefix) => path.startsWith(prefix))) return;
    const { ajv, document } = this.load();
    const route = request.routeOptions.url?.replace(/:(\w+)/g, '{$1}');
    const method = request.method.toLowerCase();
    const operation = route ? document.paths[route]?.[method] : undefined;
    if (!operation) {
      // Unknown routes (404), other methods on a submit URL (405), HEAD: no operation to hold to.
      this.undocumented++;
      return;
    }
    this.checked++;
    const status = String(reply.statusCode);
    const statusKey = [status, `${status[0]}XX`, 'default'].find((key) => key in operation.responses);
    if (!statusKey) return this.fail(request, reply, `status ${status} is not documented`);
    const content = operation.responses[statusKey]!.content;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
    if (!content) {
      if (body === undefined || body === null || body === '') return;
      return this.fail(request, reply, `status ${status} is documented without a body, got ${String(reply.getHeader('content-type'))}`);
    }
    const mediaType = String(reply.getHeader('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(mediaType in content)) {
      return this.fail(request, reply, `Content-Type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`);
    }
    // A file download streams its bytes: the documented binary string holds any.
    if (mediaType === 'application/octet-stream' && body instanceof Readable) return;
    if (typeof body !== 'string') return this.fail(request, reply, 'the body is not text');
    const key = pointer('#', 'paths', route!, method, 'responses', statusKey, 'content', mediaType, 'schema').slice(2);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${key}` });
      this.validators.set(key, validate);
    }
    let data: unknown = body;
    if (mediaType.endsWith('json')) {
      try {
        data = JSON.parse(body);
      } catch {
        return this.fail(request, reply, 'the body is not JSON');
      }
    }
    if (!validate(data)) this.fail(request, reply, ajv.errorsText(validate.errors));
  }

  private fail(request: FastifyRequest, reply: FastifyReply, message: string): void {
    this.failures.push(`${request.method} ${request.url.slice(0, 120)} → ${reply.statusCode}: ${message}`);
  }

  /** Throws when any answer did not match the document. */
  assertNoMismatch(): void {
    if (this.failures.length > 0) {
      throw new Error(`Answers not matching /v1/openapi.json:\n${this.failures.slice(0, 20).join('\n')}`);
    }
  }
}

/** Appends this test file's counts to OPENAPI_CHECK_TALLY (one line per app) when set. */
export function recordTally(checker: OpenApiResponseChecker): void {
  const file = process.env.OPENAPI_CHECK_TALLY;
  if (file) appendFileSync(file, `${checker.checked} ${checker.undocumented} ${checker.failures.length}\n`);
}
