import { createHash, createSign } from 'node:crypto';
import type { ApiAnswer, ApiClient } from '../api-client.js';

/** A service account's JSON key: what signing in needs of it. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  token_uri: string;
}

export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
/** A token is taken as expired this long before Google says, so none expires on the way. */
const EXPIRY_MARGIN_MS = 60_000;
const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * Google's service-account sign-in (OAuth 2.0 JWT bearer grant): a JWT signed with the key's
 * private key (RS256), `aud` the key's token_uri, posted there for an access token, which is
 * reused until shortly before it expires. google-auth-library's JWT client always posts to
 * Google's own token URL, which a stand-in or a proxy cannot take; the grant is a dozen lines.
 */
export class GoogleTokens {
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly http: ApiClient) {}

  /** A token, or the token endpoint's answer that refused one. */
  async token(key: ServiceAccountKey): Promise<{ token: string } | { answer: ApiAnswer }> {
    const id = createHash('sha256').update(`${key.client_email}\n${key.private_key}\n${key.token_uri}`).digest('hex');
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > Date.now()) return { token: cached.token };
    const answer = await this.http.request({
      method: 'POST',
      url: key.token_uri,
      form: { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signedAssertion(key) },
    });
    const body = answer.body as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (answer.status !== 200 || typeof body?.access_token !== 'string') return { answer };
    const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000;
    this.cache.set(id, { token: body.access_token, expiresAt: Date.now() + lifetimeMs - EXPIRY_MARGIN_MS });
    return { token: body.access_token };
  }

  /** The key was refused: ask again next time. */
  forget(key: ServiceAccountKey): void {
    this.cache.delete(createHash('sha256').update(`${key.client_email}\n${key.private_key}\n${key.token_uri}`).digest('hex'));
  }
}

export function signedAssertion(key: ServiceAccountKey, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = b64url(JSON.stringify({ iss: key.client_email, scope: SHEETS_SCOPE, aud: key.token_uri, iat, exp: iat + 3600 }));
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key.private_key);
  return `${header}.${claims}.${b64url(signature)}`;
}

/** A sheet's name in A1 notation: quoted, its quotes doubled. */
export const quotedSheet = (sheet: string) => `'${sheet.replace(/'/g, "''")}'`;

/** The letters of a 1-based column number: 1 → A, 27 → AA. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The Sheets API's values methods, for one spreadsheet. */
export class SheetsClient {
  constructor(
    private readonly http: ApiClient,
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly spreadsheet: string,
  ) {}

  private url(range: string, suffix = '', query: Record<string, string> = {}): string {
    const q = new URLSearchParams(query).toString();
    return `${this.baseUrl}/v4/spreadsheets/${encodeURIComponent(this.spreadsheet)}/values/${encodeURIComponent(range)}${suffix}${q ? `?${q}` : ''}`;
  }

  private get auth() {
    return { authorization: `Bearer ${this.token}` };
  }

  /** The values of a range, as rows of text (`values` is absent for an empty range). */
  async get(range: string): Promise<{ answer: ApiAnswer; rows: string[][] }> {
    const answer = await this.http.request({ method: 'GET', url: this.url(range, '', { majorDimension: 'ROWS' }), headers: this.auth });
    const values = (answer.body as { values?: unknown } | undefined)?.values;
    const rows = Array.isArray(values) ? values.map((row) => (Array.isArray(row) ? row.map((cell) => String(cell)) : [])) : [];
    return { answer, rows };
  }

  /** Writes one row at `range` as typed (RAW: `=…` stays text). */
  update(range: string, row: string[]): Promise<ApiAnswer> {
    return this.http.request({ method: 'PUT', url: this.url(range, '', { valueInputOption: 'RAW' }), headers: this.auth, json: { range, majorDimension: 'ROWS', values: [row] } });
  }

  /** Appends one row after the sheet's last, as typed. */
  append(range: string, row: string[]): Promise<ApiAnswer> {
    return this.http.request({
      method: 'POST',
      url: this.url(range, ':append', { valueInputOption: 'RAW', insertDataOption: 'INSERT_ROWS' }),
      headers: this.auth,
      json: { majorDimension: 'ROWS', values: [row] },
    });
  }
}
