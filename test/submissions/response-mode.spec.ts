import { describe, expect, it } from 'vitest';
import type { Form } from '../../src/features/forms/form.types.js';
import { respondsWithJson } from '../../src/features/submit/response-mode.js';

const withSuccessUrl = { successUrl: 'https://example.com/thanks' } as Form;
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the response mode (JSON or redirect) from Accept, Content-Type and the form', () => {
  it('answers JSON when Accept ranks JSON no lower than HTML, whatever the body or the form', () => {
    for (const accept of ['application/json', 'Application/JSON', 'application/json, text/html', 'text/html;q=0.5, application/json;q=0.5', 'text/html; q=0.2, application/json; q=0.9']) {
      expect(respondsWithJson(accept, 'application/x-www-form-urlencoded', withSuccessUrl)).toBe(true);
    }
  });

  it('answers a redirect when HTML ranks higher or JSON is refused, asked again and again (the answers are remembered per header)', () => {
    for (let round = 0; round < 3; round++) {
      for (const accept of [BROWSER, 'application/json;q=0.4, text/html', 'application/json;q=0', 'application/json;q=abc', '*/*']) {
        expect(respondsWithJson(accept, 'application/x-www-form-urlencoded', undefined)).toBe(false);
        expect(respondsWithJson(accept, 'application/json', withSuccessUrl)).toBe(false);
      }
    }
  });

  it('posted JSON without a JSON Accept answers JSON unless the form has a success URL', () => {
    expect(respondsWithJson(undefined, 'application/json; charset=utf-8', undefined)).toBe(true);
    expect(respondsWithJson(BROWSER, 'application/json', undefined)).toBe(true);
    expect(respondsWithJson(undefined, 'application/json', withSuccessUrl)).toBe(false);
  });

  it('answers the same for headers too long or too many to remember', () => {
    const long = `${'x-custom/type;q=0.1, '.repeat(40)}application/json`;
    expect(respondsWithJson(long, 'text/plain', undefined)).toBe(true);
    for (let i = 0; i < 200; i++) expect(respondsWithJson(`text/x-${i}, application/json;q=0.${(i % 9) + 1}`, 'text/plain', undefined)).toBe(true);
    expect(respondsWithJson(`${long};q=0`, 'text/plain', undefined)).toBe(false);
  });
});
