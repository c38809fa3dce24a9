import { describe, expect, it } from 'vitest';
import { canonicalRequestUrl } from '../../src/platform/http/canonical-path.js';

describe('canonicalRequestUrl', () => {
  it('leaves a canonical URL as it is', () => {
    for (const url of ['/', '/dashboard/forms/frm_1', '/v1/submit/frm_1?a=%41&b=//c', '/a.b/c-d_e~f']) {
      expect(canonicalRequestUrl(url), url).toBe(url);
    }
  });

  it('decodes escaped letters, digits and -_~ in either case of hex, and folds doubled slashes', () => {
    expect(canonicalRequestUrl('/%64ashboard//adm%69n')).toBe('/dashboard/admin');
    expect(canonicalRequestUrl('/%44%41SHBOARD')).toBe('/DASHBOARD');
    expect(canonicalRequestUrl('/%6a%6A%7a%5a%41%4f%50%61%6f%70')).toBe('/jjzZAOPaop');
    expect(canonicalRequestUrl('/v%31/%30%39')).toBe('/v1/09');
    expect(canonicalRequestUrl('/a%2Db%5Fc%7Ed%2db%5fc%7e')).toBe('/a-b_c~d-b_c~');
    expect(canonicalRequestUrl('///a////b//')).toBe('/a/b/');
  });

  it('keeps every other escape, the dot above all (no .. segment can be made)', () => {
    for (const url of ['/%2e%2e/admin', '/%2E%2E/admin', '/a%2Fb', '/a%3Fb', '/a%40b', '/a%60b', '/a%5Bb', '/a%7Bb', '/a%3Ab', '/a%20b', '/a%25b', '/a%2Bb', '/a%7Fb', '/a%C3%A9']) {
      expect(canonicalRequestUrl(url), url).toBe(url);
    }
  });

  it('decodes once: an escaped percent sign stays an escape', () => {
    expect(canonicalRequestUrl('/%2564ashboard')).toBe('/%2564ashboard');
  });

  it('never touches the query string', () => {
    expect(canonicalRequestUrl('/a%62c//d?x=%64//y&z=%2e')).toBe('/abc/d?x=%64//y&z=%2e');
    expect(canonicalRequestUrl('/a?%64=1')).toBe('/a?%64=1');
    expect(canonicalRequestUrl('//?q')).toBe('/?q');
  });
});
