import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, validationFailed } from '../errors.js';

/** A write's answer as kept for replays. */
export interface WriteAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Keeps and replays first answers per API key and Idempotency-Key (the composition root passes the service). */
export interface IdempotencyRunner {
  run(apiKeyId: string, key: string | undefined, requestHash: string, write: () => Promise<WriteAnswer>): Promise<WriteAnswer & { replayed: boolean }>;
}

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * Route hook of every write of the management API but the hooks the specification gives every
 * key: before the body is read, so a key that may not write learns so whatever it sent.
 */
export async function manageOnly(request: FastifyRequest): Promise<void> {
  if (request.apiKeyScope !== 'manage') {
    throw new AppError('access_denied', 'This API key may not write: writes need a key of scope manage (formgate keys create <account> --scope manage).');
  }
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw validationFailed('The Idempotency-Key header is not valid.', { 'Idempotency-Key': 'must be 1 to 255 printable ASCII characters' });
  }
  return value;
}

/** The If-Match header, when sent. */
export function ifMatchOf(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Runs a write under its Idempotency-Key, if it has one, and sends its answer (or the first
 * answer, replayed, with `Idempotent-Replayed: true`). The same key names the same request:
 * method, matched route and its parameters, and body (so a path spelled another way is the same request).
 */
export async function sendWrite(runner: IdempotencyRunner, request: FastifyRequest, reply: FastifyReply, write: () => Promise<WriteAnswer>): Promise<FastifyReply> {
  const key = idempotencyKeyOf(request);
  const requestHash = createHash('sha256').update(`${request.method} ${request.routeOptions.url}\n${JSON.stringify(request.params ?? null)}\n${JSON.stringify(request.body ?? null)}`).digest('base64url');
  const answer = await runner.run(request.apiKeyId, key, requestHash, write);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  reply.code(answer.status);
  return answer.status === 204 ? reply.send() : reply.send(answer.body);
}

/** OpenAPI request headers of a write. */
export const writeHeaders = (options: { ifMatch: boolean }) => ({
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      description: 'Up to 255 printable ASCII characters: a repeat of the same request with the same key within 24 hours gets the first answer again, and changes nothing',
    },
    ...(options.ifMatch ? { 'if-match': { type: 'string', description: "The ETag the resource had when read: the write happens only if it still has it, else 412 precondition_failed" } } : {}),
  },
});

const etagHeader = { ETag: { type: 'string', description: 'Changes whenever the resource does: send it back in If-Match to write only over what was read' } } as const;
const replayedHeader = { 'Idempotent-Replayed': { type: 'string', const: 'true', description: 'Present on a replayed first answer' } } as const;

/** Response headers of an answer carrying the resource. */
export const resourceHeaders = { ...etagHeader, ...replayedHeader } as const;
export const writeAnswerHeaders = replayedHeader;
