import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { APIErrorCode, APIResponseError, RequestTimeoutError, UnknownHTTPResponseError } from '@notionhq/client';
import { answerOfError } from '../../src/features/integrations/notion/notion.client.js';
import { pageOf } from '../../src/features/integrations/notion/notion.kind.js';
import { columnLetters, GOOGLE_TOKEN_ENDPOINT, quotedSheet, tokenTransporter } from '../../src/features/integrations/sheets/sheets.client.js';
import { findServiceKind, INTEGRATION_KINDS, SEQUENTIAL_KINDS } from '../../src/features/integrations/service-kinds.js';
import type { KindDelivery } from '../../src/features/integrations/service-kind.js';

const config = parseConfig({ BASE_URL: 'https://forms.example.com' });

describe('service kinds', () => {
  it('are listed after the chat kinds; the data services send in order, the mailing lists need not', () => {
    expect(INTEGRATION_KINDS).toEqual(['slack', 'discord', 'telegram', 'teams', 'ntfy', 'sheets', 'airtable', 'notion', 'mailchimp', 'listmonk']);
    expect(SEQUENTIAL_KINDS).toEqual(['sheets', 'airtable', 'notion']);
  });

  it('sheets: column letters and quoted sheet names', () => {
    expect([1, 2, 26, 27, 52, 702, 703].map(columnLetters)).toEqual(['A', 'B', 'Z', 'AA', 'AZ', 'ZZ', 'AAA']);
    expect(quotedSheet("Bob's leads")).toBe("'Bob''s leads'");
  });

  it('sheets: the token request goes to GOOGLE_TOKEN_URL, without retries of its own; nothing else is redirected', async () => {
    const transporter = tokenTransporter('http://127.0.0.1:9/token', 5000);
    const seen: Array<{ url: string; retry: unknown; retryConfig: unknown; timeout: unknown; redirect: unknown }> = [];
    const adapter = async <T>(options: { url: URL; retry?: unknown; retryConfig?: unknown; timeout?: unknown; redirect?: unknown }) => {
      seen.push({ url: options.url.href, retry: options.retry, retryConfig: options.retryConfig, timeout: options.timeout, redirect: options.redirect });
      return Object.assign(new Response('{}'), { config: options, data: {} as T }) as never;
    };
    // As google-auth-library asks for a token: a POST to Google's endpoint, retried on failure.
    await transporter.request({ method: 'POST', url: GOOGLE_TOKEN_ENDPOINT, retryConfig: { httpMethodsToRetry: ['POST'] }, adapter });
    await transporter.request({ method: 'GET', url: 'https://sheets.googleapis.com/v4/spreadsheets/x', adapter });
    expect(seen).toEqual([
      { url: 'http://127.0.0.1:9/token', retry: false, retryConfig: undefined, timeout: 5000, redirect: 'manual' },
      { url: 'https://sheets.googleapis.com/v4/spreadsheets/x', retry: false, retryConfig: undefined, timeout: 5000, redirect: 'manual' },
    ]);
  });

  it('sheets: a key must name Google’s token endpoint, wherever GOOGLE_TOKEN_URL sends the request', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const parse = findServiceKind('sheets')!.parse;
    const proxied = parseConfig({ BASE_URL: 'https://forms.example.com', GOOGLE_TOKEN_URL: 'http://google-proxy.internal/token' });
    const key = (tokenUri: string) => JSON.stringify({ client_email: 'a@b.iam.gserviceaccount.com', private_key: pem, token_uri: tokenUri });
    for (const c of [config, proxied]) {
      for (const elsewhere of ['https://evil.example/token', 'http://google-proxy.internal/token']) {
        expect(parse({ key: key(elsewhere), spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' }, c)).toEqual({ problems: { key: 'its token_uri must be https://oauth2.googleapis.com/token' } });
      }
      expect(parse({ key: key('https://oauth2.googleapis.com/token'), spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' }, c)).toMatchObject({
        settings: { spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms', sheet: 'Sheet1', serviceAccount: 'a@b.iam.gserviceaccount.com' },
      });
    }
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
  it('notion: the SDK’s errors become answers: its status, message and Retry-After, or why there was none', () => {
    const limited = new APIResponseError({ code: APIErrorCode.RateLimited, status: 429, message: 'Slow down.', headers: new Headers({ 'retry-after': '7' }), rawBodyText: '{}', additional_data: undefined, request_id: undefined });
    expect(answerOfError(limited, 12)).toEqual({ status: 429, error: null, durationMs: 12, retryAfter: '7', body: { code: 'rate_limited', message: 'Slow down.' } });
    const proxy = new UnknownHTTPResponseError({ status: 502, message: undefined, headers: new Headers(), rawBodyText: 'Bad gateway' });
    expect(answerOfError(proxy, 3)).toEqual({ status: 502, error: null, durationMs: 3, retryAfter: undefined, body: 'Bad gateway' });
    expect(answerOfError(new RequestTimeoutError(), 5)).toMatchObject({ status: null, error: 'timeout' });
    expect(answerOfError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 5)).toMatchObject({ status: null, error: 'timeout' });
    expect(answerOfError(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }), 1)).toMatchObject({ status: null, error: 'ECONNREFUSED' });
  });
});
