import { describe, expect, it } from 'vitest';
import { MAX_TOKENS, tokenize } from '../../src/features/spam-filter/tokenize.js';

const words = (payload: Record<string, unknown>) => tokenize(payload).filter((token) => !token.startsWith('len:'));

describe('tokenize', () => {
  it('gives each lower-cased word once, from the values only, never the field names', () => {
    expect(words({ message: 'Hello hello World', topic: ['Sales', 'hello'] })).toEqual(['hello', 'world', 'sales']);
    expect(words({ 'secret-field-name': 'x' })).toEqual(['x']);
  });

  it('reads strings only, in lists too', () => {
    expect(words({ a: ['x y', 3, true, null], b: 7, c: false, d: { file: { id: 'fil_1' } } })).toEqual(['x', 'y']);
  });

  it('turns a link into its host and site, not its words', () => {
    expect(words({ m: 'see https://www.Example.com/buy-now?x=1 today' })).toEqual(['link', 'host:www.example.com', 'site:example.com', 'see', 'today']);
    expect(words({ m: 'visit cheap-pills.ru now' })).toEqual(['link', 'host:cheap-pills.ru', 'site:cheap-pills.ru', 'visit', 'now']);
    expect(words({ m: 'http://192.168.1.1/x' })).toContain('link:ip');
    expect(words({ m: 'a sentence. Another one' })).toEqual(['a', 'sentence', 'another', 'one']);
  });

  it("turns an email address into its site, not the person's name", () => {
    expect(words({ m: 'write to Bob.Smith@Mail.Example.co.uk please' })).toEqual(['email', 'email-site:co.uk', 'write', 'to', 'please']);
  });

  it('keeps symbols and the length of numbers, not their digits', () => {
    expect(words({ m: '$100 off!!! call 0123456789012345 in 2026' })).toEqual(['sym:$', 'sym:!', 'num:3', 'off', 'call', 'num:12', 'in', 'num:4']);
  });

  it('marks a long value written in capitals only', () => {
    expect(words({ m: 'BUY NOW LIMITED OFFER!!' })).toContain('shape:shouting');
    expect(words({ m: 'BUY NOW LIMITED OFFEr!!' })).not.toContain('shape:shouting');
    expect(words({ m: 'SHORT CAPS ONLY' })).not.toContain('shape:shouting');
    expect(words({ m: '1234567890 1234567890 !!' })).not.toContain('shape:shouting');
  });

  it('reads look-alike full-width letters as the letters, and keeps inner apostrophes', () => {
    expect(words({ m: 'ＦＲＥＥ money' })).toEqual(['free', 'money']);
    expect(words({ m: "Don't say l'été" })).toEqual(["don't", 'say', "l'été"]);
  });

  it('splits scripts written without spaces into words', () => {
    const tokens = words({ m: '東京に行きます' });
    expect(tokens).toContain('東京');
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('')).toBe('東京に行きます');
  });

  it('drops words longer than 40 characters', () => {
    expect(words({ m: `${'a'.repeat(41)} ${'b'.repeat(40)}` })).toEqual(['b'.repeat(40)]);
  });

  it('classes the text by the rounded-up base-2 logarithm of its length, from 0 to 14', () => {
    const lengthClass = (payload: Record<string, unknown>) => tokenize(payload).find((token) => token.startsWith('len:'));
    expect(lengthClass({})).toBe('len:0');
    expect(lengthClass({ a: '' })).toBe('len:0');
    expect(lengthClass({ a: 'x' })).toBe('len:0');
    expect(lengthClass({ a: 'xy' })).toBe('len:1');
    expect(lengthClass({ a: 'x'.repeat(1024) })).toBe('len:10');
    expect(lengthClass({ a: 'x'.repeat(1025) })).toBe('len:11');
    expect(lengthClass({ a: 'x '.repeat(20_000) })).toBe('len:14');
  });

  it('reads at most 20 000 characters and keeps at most MAX_TOKENS tokens', () => {
    expect(words({ a: `${'a '.repeat(10_000)}tail` })).toEqual(['a']);
    expect(words({ a: 'a '.repeat(10_000), b: 'second' })).toEqual(['a']);
    const many = Array.from({ length: 1000 }, (_, i) => `w${i.toString(36)}x`).join(' ');
    const tokens = tokenize({ m: many });
    expect(tokens).toHaveLength(MAX_TOKENS + 1);
    expect(tokens.at(-1)).toMatch(/^len:/);
  });
});
