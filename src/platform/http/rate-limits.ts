import type { FastifyReply } from 'fastify';
import ipaddr from 'ipaddr.js';
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

/**
 * The client part of a rate-limit key. An IPv6 client usually holds a whole /64, so it counts as
 * one client; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
