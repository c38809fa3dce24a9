import { describe, expect, it } from 'vitest';
import { matchSpamRule, originAllowed } from '../../src/features/submit/spam-rules.js';

type Rules = Parameters<typeof matchSpamRule>[0];
const NO_RULES: Rules = { blockedTerms: [], blockedEmails: [], maxLinks: null };
const rules = (overrides: Partial<Rules>): Rules => ({ ...NO_RULES, ...overrides });

describe('matchSpamRule', () => {
  it('matches nothing on a form without rules, however the submission looks', () => {
    expect(matchSpamRule(NO_RULES, { m: 'casino https://a.example https://b.example', e: 'spam@example.com' })).toBeUndefined();
  });

  it('a blocked term matches inside any text value, in any case, numbers included', () => {
    const form = rules({ blockedTerms: ['casino', '555'] });
    expect(matchSpamRule(form, { m: 'Visit our CASINO tonight' })).toBe('blocked_term');
    expect(matchSpamRule(form, { tags: ['fine', 'megacasinos'] })).toBe('blocked_term');
    expect(matchSpamRule(form, { phone: 15550100 })).toBe('blocked_term');
    expect(matchSpamRule(form, { m: 'cas ino', ok: true, none: null })).toBeUndefined();
    // A file is judged by the scanner: its stored name is not text to match.
    expect(matchSpamRule(form, { f: { file: { id: 'fil_casino', name: 'casino.pdf', size: 1, type: 'application/pdf' } } })).toBeUndefined();
  });

  it('a blocked address matches a value that is exactly that one address, trimmed and in any case', () => {
    const form = rules({ blockedEmails: ['spam@example.com'] });
    expect(matchSpamRule(form, { email: '  Spam@Example.COM ' })).toBe('blocked_email');
    expect(matchSpamRule(form, { email: ['ok@example.com', 'spam@example.com'] })).toBe('blocked_email');
    expect(matchSpamRule(form, { email: 'other@example.com' })).toBeUndefined();
    expect(matchSpamRule(form, { email: 'xspam@example.com' })).toBeUndefined();
    // A display name or a list is not one address.
    expect(matchSpamRule(form, { email: 'Spammer <spam@example.com>' })).toBeUndefined();
    expect(matchSpamRule(form, { email: 'spam@example.com, ok@example.com' })).toBeUndefined();
  });

  it('a blocked @domain matches that domain and its subdomains only', () => {
    const form = rules({ blockedEmails: ['@spam.example'] });
    expect(matchSpamRule(form, { e: 'a@spam.example' })).toBe('blocked_email');
    expect(matchSpamRule(form, { e: 'a@mx.SPAM.example' })).toBe('blocked_email');
    expect(matchSpamRule(form, { e: 'a@notspam.example' })).toBeUndefined();
    expect(matchSpamRule(form, { e: 'a@spam.example.org' })).toBeUndefined();
  });

  it('counts links over all values; a URL written https://www. is one link', () => {
    const form = rules({ maxLinks: 2 });
    expect(matchSpamRule(form, { a: 'https://www.a.example and www.b.example' })).toBeUndefined();
    expect(matchSpamRule(form, { a: 'https://www.a.example', b: ['http://b.example', 'HTTP://C.example'] })).toBe('too_many_links');
    expect(matchSpamRule(rules({ maxLinks: 0 }), { a: 'see www.a.example' })).toBe('too_many_links');
    expect(matchSpamRule(rules({ maxLinks: 0 }), { a: 'no links, a.example is a bare name' })).toBeUndefined();
  });

  it('checks terms, then addresses, then links: the first match decides', () => {
    const form = rules({ blockedTerms: ['viagra'], blockedEmails: ['@spam.example'], maxLinks: 0 });
    expect(matchSpamRule(form, { e: 'x@spam.example', m: 'viagra https://a.example' })).toBe('blocked_term');
    expect(matchSpamRule(form, { e: 'x@spam.example', m: 'https://a.example' })).toBe('blocked_email');
    expect(matchSpamRule(form, { e: 'x@ok.example', m: 'https://a.example' })).toBe('too_many_links');
  });
});

describe('originAllowed', () => {
  it('allows everything when the form names no origin', () => {
    expect(originAllowed([], undefined, undefined)).toBe(true);
    expect(originAllowed([], 'https://anything.example', undefined)).toBe(true);
  });

  it("matches the Origin's host in any case; an entry without a port allows any port", () => {
    expect(originAllowed(['www.example.com'], 'https://WWW.Example.com', undefined)).toBe(true);
    expect(originAllowed(['www.example.com'], 'http://www.example.com:8080', undefined)).toBe(true);
    expect(originAllowed(['www.example.com:8443'], 'https://www.example.com:8443', undefined)).toBe(true);
    expect(originAllowed(['www.example.com:8443'], 'https://www.example.com', undefined)).toBe(false);
    expect(originAllowed(['www.example.com'], 'https://example.com', undefined)).toBe(false);
    expect(originAllowed(['www.example.com'], 'https://www.example.com.evil.example', undefined)).toBe(false);
  });

  it('reads the Referer only without an Origin, and refuses a request with neither', () => {
    expect(originAllowed(['www.example.com'], undefined, 'https://www.example.com/contact?x=1')).toBe(true);
    expect(originAllowed(['www.example.com'], '', 'https://www.example.com/contact')).toBe(true);
    expect(originAllowed(['www.example.com'], 'https://evil.example', 'https://www.example.com/contact')).toBe(false);
    expect(originAllowed(['www.example.com'], undefined, undefined)).toBe(false);
    expect(originAllowed(['www.example.com'], '', '')).toBe(false);
  });

  it('refuses an Origin that is no http(s) URL', () => {
    for (const origin of ['null', 'www.example.com', 'file:///etc/passwd', 'ftp://www.example.com', 'https://']) {
      expect(originAllowed(['www.example.com'], origin, undefined), origin).toBe(false);
    }
  });
});
