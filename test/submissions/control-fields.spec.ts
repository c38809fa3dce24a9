import { describe, expect, it } from 'vitest';
import type { SubmissionPayload } from '../../src/features/submissions/submission.types.js';
import { CONTROL_FIELDS, postedAccessKey, separateControlFields } from '../../src/features/submit/control-fields.js';

/** As the body parsers build what was posted: a null-prototype object. */
const posted = (fields: SubmissionPayload): SubmissionPayload => Object.assign(Object.create(null) as SubmissionPayload, fields);

describe('separateControlFields', () => {
  it('stores every field but the control fields, in the order posted', () => {
    const { payload } = separateControlFields(
      posted({ name: 'Ada', _honey: '', _gotcha: '', botfield: '', url: '', website: '', 'cf-turnstile-response': 't', 'h-captcha-response': 'h', 'g-recaptcha-response': 'g', altcha: 'a', access_key: 'k', redirect: '/x', message: 'Hi' }),
    );
    expect(Object.entries(payload)).toEqual([['name', 'Ada'], ['message', 'Hi']]);
    expect([...CONTROL_FIELDS].sort()).toEqual(['_gotcha', '_honey', 'access_key', 'altcha', 'botfield', 'cf-turnstile-response', 'g-recaptcha-response', 'h-captcha-response', 'redirect', 'url', 'website']);
  });

  it('keeps __proto__ and constructor as plain data, in an object without a prototype', () => {
    const fields = posted({ constructor: 'c' });
    Object.defineProperty(fields, '__proto__', { value: 'p', enumerable: true, writable: true, configurable: true });
    const { payload } = separateControlFields(fields);
    expect(Object.getPrototypeOf(payload)).toBeNull();
    expect(Object.keys(payload)).toEqual(['constructor', '__proto__']);
    expect(payload['__proto__']).toBe('p');
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it('a honeypot is filled by any value but empty text, false and null, in a list too', () => {
    const filled = (value: SubmissionPayload[string]) => separateControlFields(posted({ website: value })).control.honeypotFilled;
    for (const value of ['x', ' ', true, 0, ['', 'x']]) expect(filled(value), JSON.stringify(value)).toBe(true);
    for (const value of ['', false, null, [], ['', null, false]]) expect(filled(value), JSON.stringify(value)).toBe(false);
    for (const name of ['_honey', '_gotcha', 'botfield', 'url', 'website']) {
      expect(separateControlFields(posted({ [name]: 'bot' })).control.honeypotFilled, name).toBe(true);
    }
    expect(separateControlFields(posted({ name: 'Ada' })).control.honeypotFilled).toBe(false);
  });

  it("reads the bot-check response from the field of the form's own vendor only", () => {
    const fields = posted({ 'cf-turnstile-response': 'turnstile-token', 'h-captcha-response': 'hcaptcha-token', 'g-recaptcha-response': 'recaptcha-token', altcha: 'altcha-payload' });
    expect(separateControlFields(fields, 'turnstile').control.botCheckResponse).toBe('turnstile-token');
    expect(separateControlFields(fields, 'hcaptcha').control.botCheckResponse).toBe('hcaptcha-token');
    expect(separateControlFields(fields, 'recaptcha').control.botCheckResponse).toBe('recaptcha-token');
    expect(separateControlFields(fields, 'altcha').control.botCheckResponse).toBe('altcha-payload');
    expect(separateControlFields(fields, 'none').control.botCheckResponse).toBeUndefined();
    expect(separateControlFields(fields).control.botCheckResponse).toBeUndefined();
    expect(separateControlFields(posted({ 'h-captcha-response': 'h' }), 'turnstile').control.botCheckResponse).toBeUndefined();
  });

  it('a repeated control field counts by its first value; a first value that is no text counts as absent', () => {
    expect(separateControlFields(posted({ redirect: ['/first', '/second'] })).control.redirect).toBe('/first');
    expect(separateControlFields(posted({ redirect: [7, '/second'] })).control.redirect).toBeUndefined();
    expect(separateControlFields(posted({ redirect: true })).control.redirect).toBeUndefined();
    expect(separateControlFields(posted({ altcha: ['a', 'b'] }), 'altcha').control.botCheckResponse).toBe('a');
    expect(separateControlFields(posted({ name: 'Ada' })).control.redirect).toBeUndefined();
  });
});

describe('postedAccessKey', () => {
  it('is the first text value of access_key, else undefined', () => {
    expect(postedAccessKey(posted({ access_key: 'sesame' }))).toBe('sesame');
    expect(postedAccessKey(posted({ access_key: ['sesame', 'other'] }))).toBe('sesame');
    expect(postedAccessKey(posted({ access_key: 12345 }))).toBeUndefined();
    expect(postedAccessKey(posted({ name: 'Ada' }))).toBeUndefined();
  });

  it('never reads an inherited access_key', () => {
    const inherited = Object.create({ access_key: 'from-prototype' }) as SubmissionPayload;
    expect(postedAccessKey(inherited)).toBeUndefined();
  });
});
