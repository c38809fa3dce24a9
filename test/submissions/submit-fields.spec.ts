import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { parseUrlencodedFields } from '../../src/features/submit/submit-fields.js';

describe('parseUrlencodedFields', () => {
  it('decodes "+" as a space and percent-escapes, with or without escapes in the same pair', () => {
    const fields = parseUrlencodedFields('plain=Ada&spaced=Ada+Lovelace&escaped=ada%40example.com&both=a+b%2Bc%20d&na%6De=x&%2B=plus&empty=&bare');
    expect({ ...fields }).toEqual({
      plain: 'Ada',
      spaced: 'Ada Lovelace',
      escaped: 'ada@example.com',
      both: 'a b+c d',
      name: 'x',
      '+': 'plus',
      empty: '',
      bare: '',
    });
  });

  it('decodes what a browser encodes, as URLSearchParams does', () => {
    const sent = { name: 'Zoë Ünal', note: '100% sure? a+b=c & d', emoji: '🦆', literal: '%41' };
    const fields = parseUrlencodedFields(new URLSearchParams(sent).toString());
    expect({ ...fields }).toEqual(sent);
  });

  it('refuses a malformed escape wherever it is, in a name or in a value', () => {
    for (const body of ['a=%E0%A4%A', 'a=%zz', 'a=100%', '%=x', 'ok=1&a+b=%']) {
      expect(() => parseUrlencodedFields(body), body).toThrow(expect.objectContaining({ code: 'validation_failed', message: expect.stringContaining('percent-escape') }));
    }
  });

  it('refuses a NUL that arrives escaped, in a name or in a value, as the field it is in', () => {
    for (const [body, name] of [['note=a%00b', 'note'], ['n%00te=x', 'n\u0000te']] as const) {
      expect(() => parseUrlencodedFields(body), body).toThrow(AppError);
      expect(() => parseUrlencodedFields(body), body).toThrow(expect.objectContaining({ code: 'validation_failed', fieldErrors: { [name]: 'must not contain NUL characters' } }));
    }
  });
});
