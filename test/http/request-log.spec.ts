import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { REDACTED, redactedUrl, serializeRequest, withRedactedRequests } from '../../src/platform/http/request-log.js';

describe('redactedUrl', () => {
  it('hides a link token however the path is spelled', () => {
    for (const url of [
      '/dashboard/reset-password/abc',
      '/Dashboard/Reset-Password/abc',
      '/dashboard/reset%2Dpassword/abc',
      '/dashboard%2Freset-password%2Fabc',
      '//dashboard/./reset-password//abc/',
      '/x/../dashboard/reset-password/abc',
      'http://forms.example.com/dashboard/reset-password/abc',
    ]) {
      expect(redactedUrl(url).toLowerCase(), url).toBe(`/dashboard/reset-password/${REDACTED}`);
    }
    expect(redactedUrl('/v1/unsubscribe/abc.def?x=1')).toBe(`/v1/unsubscribe/${REDACTED}?${REDACTED}`);
    expect(redactedUrl('/dashboard/invite/abc/%zz')).toBe(`/dashboard/invite/${REDACTED}/%zz`);
  });

  it('hides the whole query string of a signed link and keeps its path', () => {
    expect(redactedUrl('/v1/files/fil_1?expires=1&signature=abc')).toBe(`/v1/files/fil_1?${REDACTED}`);
    expect(redactedUrl('/v1/files/fil_1')).toBe('/v1/files/fil_1');
  });

  it('leaves every other URL as sent', () => {
    for (const url of ['/v1/submit/frm_1?x=1', '/dashboard/invite', '/dashboard/forms/frm_1/submissions?q=a%20b', '/v1/api/files/fil_1', '/%zz?a=b', '/']) {
      expect(redactedUrl(url), url).toBe(url);
    }
  });

  it('hides the code and state single sign-on returns with, and the token of a deeper path', () => {
    expect(redactedUrl('/dashboard/auth/oidc/callback?code=abc&state=def')).toBe(`/dashboard/auth/oidc/callback?${REDACTED}`);
    expect(redactedUrl('/dashboard/auth/oidc/callback')).toBe('/dashboard/auth/oidc/callback');
    expect(redactedUrl('/dashboard/confirm-email/tok123/accept')).toBe(`/dashboard/confirm-email/${REDACTED}/accept`);
    expect(redactedUrl('/dashboard/verify-email/tok123')).toBe(`/dashboard/verify-email/${REDACTED}`);
  });
});

describe('the request serializer', () => {
  it('logs the redacted URL beside the usual request fields', () => {
    const request = { method: 'GET', url: '/dashboard/invite/tok123', headers: {}, host: 'forms.example.com', ip: '203.0.113.9', socket: { remotePort: 41_000 } };
    expect(serializeRequest(request as unknown as FastifyRequest)).toEqual({
      method: 'GET',
      url: `/dashboard/invite/${REDACTED}`,
      version: undefined,
      host: 'forms.example.com',
      remoteAddress: '203.0.113.9',
      remotePort: 41_000,
    });
  });

  it('is installed however the logger is given, keeping the other options', () => {
    expect(withRedactedRequests({ logger: false })).toEqual({ logger: false });
    expect(withRedactedRequests({})).toEqual({ logger: false });
    expect(withRedactedRequests({ logger: true })).toEqual({ logger: { serializers: { req: serializeRequest } } });
    const res = (reply: { statusCode: number }) => ({ statusCode: reply.statusCode });
    expect(withRedactedRequests({ logger: { level: 'warn', serializers: { res } } })).toEqual({ logger: { level: 'warn', serializers: { res, req: serializeRequest } } });
  });
});
