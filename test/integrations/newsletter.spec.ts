import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../src/features/integrations/api-client.js';
import { ApiClient } from '../../src/features/integrations/api-client.js';
import { subscriberHash } from '../../src/features/integrations/mailchimp/mailchimp.client.js';
import { consentGiven, signUpName, signUpSkip } from '../../src/features/integrations/newsletter.js';
import type { KindDelivery } from '../../src/features/integrations/service-kind.js';
import { findServiceKind } from '../../src/features/integrations/service-kinds.js';
import { parseConfig } from '../../src/platform/config.js';

const config = parseConfig({ BASE_URL: 'https://forms.example.com' });
const fields = (record: Record<string, string>) => Object.entries(record).map(([name, value]) => ({ name, value }));

describe('mailing-list sign-ups', () => {
  it('consent: on, true, yes, 1 in any letter case, JSON true, or any of a repeated field’s values', () => {
    for (const value of ['on', 'ON', 'true', 'Yes', '1', ' yes ', true, 1, ['0', '1']]) expect(consentGiven({ subscribe: value }, 'subscribe')).toBe(true);
    for (const value of ['off', 'no', '0', '', 'false', 'y', false, null, [], ['0']]) expect(consentGiven({ subscribe: value }, 'subscribe')).toBe(false);
    expect(consentGiven({ Newsletter: 'on' }, 'newsletter')).toBe(true);
    expect(consentGiven({ email: 'a@example.com' }, 'subscribe')).toBe(false);
  });

  it('skips without consent, then without exactly one valid address', () => {
    expect(signUpSkip({}, { email: 'a@example.com' })).toBe('no consent');
    expect(signUpSkip({ consentField: 'optin' }, { email: 'a@example.com', subscribe: 'on' })).toBe('no consent');
    expect(signUpSkip({ consentField: 'optin' }, { email: 'a@example.com', optin: 'on' })).toBeUndefined();
    for (const email of ['nope', 'a@example.com, b@example.com', 'a@example.com\nBcc: x@example.com', ['a@example.com'], 42]) {
      expect(signUpSkip({}, { email, subscribe: 'on' })).toBe('no valid email address');
    }
    expect(signUpSkip({}, { EMAIL: ' A@Example.com ', subscribe: 'on' })).toBeUndefined();
  });

  it('names: first and last fields, else one name split at its first space', () => {
    expect(signUpName(fields({ first_name: 'Ada', last_name: 'Lovelace', name: 'ignored' }))).toEqual({ first: 'Ada', last: 'Lovelace' });
    expect(signUpName(fields({ 'First Name': 'Grace', Surname: 'Hopper' }))).toEqual({ first: 'Grace', last: 'Hopper' });
    expect(signUpName(fields({ name: '  Ada   King  Lovelace ' }))).toEqual({ first: 'Ada', last: 'King Lovelace' });
    expect(signUpName(fields({ name: 'Cher' }))).toEqual({ first: 'Cher', last: '' });
    expect(signUpName(fields({ email: 'a@example.com' }))).toEqual({ first: '', last: '' });
  });

  it('Mailchimp: the subscriber hash is MD5 of the lowercase address; the key’s data centre names the API base', async () => {
    expect(subscriberHash('Urist.McVankab@freddiesjokes.com')).toBe('62eeb292278cc15f5817cb78f7790b08');
    const kind = findServiceKind('mailchimp')!;
    const parsed = kind.parse({ apiKey: '0123456789abcdef0123456789abcdef-US6', audience: 'a1b2c3d4e5' }, config);
    expect(parsed).toEqual({ settings: { audience: 'a1b2c3d4e5', dataCenter: 'us6', consentField: 'subscribe' }, secrets: { apiKey: '0123456789abcdef0123456789abcdef-US6' } });
    const seen: ApiRequest[] = [];
    const http = Object.assign(new ApiClient(1000), { request: async (request: ApiRequest) => (seen.push(request), { status: 200, error: null, durationMs: 1, body: {} }) });
    const sender = kind.createSender({ config, http, ownerHttp: http });
    const message = { formName: 'F', fields: fields({ email: 'Ada@Example.com', name: 'Ada Lovelace', subscribe: 'on' }), createdAt: '2026-12-04T12:00:00.000Z', country: 'XX', link: '' };
    const delivery: KindDelivery = { submissionId: 's', createdAt: message.createdAt, fields: message.fields, message, attempts: 0, test: false };
    const settings = (parsed as { settings: Record<string, unknown> }).settings;
    expect(await sender.send({ integrationId: 'i', settings, secrets: { apiKey: 'k-us6' } }, delivery)).toMatchObject({ outcome: { kind: 'sent' }, status: 200 });
    expect(seen[0]).toMatchObject({
      method: 'PUT',
      url: `https://us6.api.mailchimp.com/3.0/lists/a1b2c3d4e5/members/${subscriberHash('ada@example.com')}`,
      headers: { authorization: `Basic ${Buffer.from('formgate:k-us6').toString('base64')}` },
      json: { email_address: 'Ada@Example.com', status_if_new: 'pending', merge_fields: { FNAME: 'Ada', LNAME: 'Lovelace' } },
    });
  });
});
