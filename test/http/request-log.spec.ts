import { describe, expect, it } from 'vitest';
import { REDACTED, redactedUrl } from '../../src/platform/http/request-log.js';

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
});
