import type { FastifyReply } from 'fastify';
import { AppError } from '../errors.js';
import { secondsUntil, type Count } from '../lib/rate-limiter.js';

/** The draft-standard RateLimit-* headers for one counter. */
export function setRateLimitHeaders(reply: FastifyReply, max: number, { count, resetMs }: Count): void {
  reply.header('ratelimit-limit', max);
  reply.header('ratelimit-remaining', Math.max(0, max - count));
  reply.header('ratelimit-reset', secondsUntil(resetMs));
}

export function rateLimited(message: string, resetMs: number): AppError {
  return new AppError('rate_limited', message, { headers: { 'Retry-After': String(secondsUntil(resetMs)) } });
}
