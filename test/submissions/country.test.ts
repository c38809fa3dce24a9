import { describe, expect, it } from 'vitest';
import { resolveCountry } from '../../src/features/submit/country.js';
import { buildTestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { storedSubmission, submit } from '../helpers/submit.js';

describe('country of a submission', () => {
  it('comes from the offline database for public addresses, XX for private and unknown ones', () => {
    expect(resolveCountry('8.8.8.8', undefined, false)).toBe('US');
    expect(resolveCountry('::ffff:8.8.8.8', undefined, false)).toBe('US');
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '::1', 'not-an-ip']) {
      expect(resolveCountry(ip, undefined, false)).toBe('XX');
    }
  });

  it('comes from COUNTRY_HEADER when configured, XX when it is missing or malformed', async () => {
    const t = await buildTestApp({ env: { COUNTRY_HEADER: 'CF-IPCountry' } });
    try {
      const { form } = await createOwner(t.services);
      const cases: Array<[Record<string, string>, string]> = [
        [{ 'cf-ipcountry': 'de' }, 'DE'],
        [{}, 'XX'],
        [{ 'cf-ipcountry': 'Germany' }, 'XX'],
      ];
      for (const [headers, expected] of cases) {
        const { submissionId } = await (await submit(t, form.id, { json: { a: 1 } }, headers)).json();
        expect((await storedSubmission(t, submissionId))!.country).toBe(expected);
      }
    } finally {
      await t.close();
    }
  });

  it('uses the forwarded address only with TRUST_PROXY', async () => {
    const t = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const { form } = await createOwner(t.services);
      const { submissionId } = await (await submit(t, form.id, { json: { a: 1 } }, { 'x-forwarded-for': '8.8.8.8' })).json();
      expect(await storedSubmission(t, submissionId)).toMatchObject({ ip: '8.8.8.8', country: 'US' });
    } finally {
      await t.close();
    }
  });
});
