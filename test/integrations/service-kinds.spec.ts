import { createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { pageOf } from '../../src/features/integrations/notion/notion.kind.js';
import { columnLetters, quotedSheet, signedAssertion, SHEETS_SCOPE } from '../../src/features/integrations/sheets/sheets.client.js';
import { findServiceKind, INTEGRATION_KINDS, SEQUENTIAL_KINDS } from '../../src/features/integrations/service-kinds.js';
import type { KindDelivery } from '../../src/features/integrations/service-kind.js';

const config = parseConfig({ BASE_URL: 'https://forms.example.com' });

describe('service kinds', () => {
  it('are listed after the chat kinds; the data services send in order, the mailing lists need not', () => {
    expect(INTEGRATION_KINDS).toEqual(['slack', 'discord', 'telegram', 'teams', 'ntfy', 'sheets', 'airtable', 'notion', 'mailchimp', 'listmonk']);
    expect(SEQUENTIAL_KINDS).toEqual(['sheets', 'airtable', 'notion']);
  });

  it('sheets: column letters, quoted sheet names and a JWT Google can verify', () => {
    expect([1, 2, 26, 27, 52, 702, 703].map(columnLetters)).toEqual(['A', 'B', 'Z', 'AA', 'AZ', 'ZZ', 'AAA']);
    expect(quotedSheet("Bob's leads")).toBe("'Bob''s leads'");
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = { client_email: 'fg@p.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), token_uri: 'https://oauth2.googleapis.com/token' };
    const at = Date.parse('2026-12-04T12:00:00Z');
    const jwt = signedAssertion(key, at);
    const [header, claims, signature] = jwt.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(claims!, 'base64url').toString())).toEqual({ iss: key.client_email, scope: SHEETS_SCOPE, aud: key.token_uri, iat: at / 1000, exp: at / 1000 + 3600 });
    expect(createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
  });

  it('sheets: a key must name the configured token endpoint', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const parse = findServiceKind('sheets')!.parse;
    const key = (tokenUri: string) => JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: pem, token_uri: tokenUri });
    expect(parse({ key: key('https://evil.example/token'), spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' }, config)).toEqual({ problems: { key: 'its token_uri must be https://oauth2.googleapis.com/token' } });
    expect(parse({ key: key('https://oauth2.googleapis.com/token'), spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' }, config)).toMatchObject({
      settings: { spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms', sheet: 'Sheet1', serviceAccount: 'a@b.iam.gserviceaccount.com' },
    });
  });

  it('notion: a value that does not fit its property goes to the body; long text is cut to 2000 characters', () => {
    const delivery = (fields: Array<{ name: string; value: string }>): KindDelivery => ({
      submissionId: 'sub_1',
      createdAt: '2026-12-04T12:00:00.000Z',
      fields,
      message: { formName: 'F', fields, createdAt: '2026-12-04T12:00:00.000Z', country: 'GB', link: 'https://x' },
      attempts: 0,
      test: false,
    });
    const properties = [
      { name: 'Name', type: 'title' },
      { name: 'When', type: 'date' },
      { name: 'Site', type: 'url' },
    ];
    const page = pageOf('ds_1', properties, delivery([{ name: 'when', value: 'next Tuesday' }, { name: 'site', value: 'https://example.com' }, { name: 'note', value: 'x'.repeat(2500) }]));
    expect(page.parent).toEqual({ type: 'data_source_id', data_source_id: 'ds_1' });
    expect(page.properties).toEqual({ Site: { url: 'https://example.com' }, Name: { title: [{ type: 'text', text: { content: 'next Tuesday' } }] } });
    const [note] = page.children as Array<{ bulleted_list_item: { rich_text: Array<{ text: { content: string } }> } }>;
    expect(note!.bulleted_list_item.rich_text[0]!.text.content).toHaveLength(2000);
    expect(note!.bulleted_list_item.rich_text[0]!.text.content.startsWith('note: xxx')).toBe(true);
  });
});
