import { createHash } from 'node:crypto';
import { gaxios, JWT } from 'google-auth-library';
import type { ApiAnswer, ApiClient } from '../api-client.js';

/** A service account's JSON key: what signing in needs of it. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  token_uri: string;
}

export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
/**
 * Google's token endpoint: the only `token_uri` a key may name, and the JWT's `aud`, which Google
 * checks. google-auth-library always posts there; GOOGLE_TOKEN_URL only changes where that post
 * goes (a proxy, a stand-in).
 */
export const GOOGLE_TOKEN_ENDPOINT = 'https://oauth2.googleapis.com/token';
/** A token is taken as expired this long before Google says, so none expires on the way. */
const EXPIRY_MARGIN_MS = 60_000;

/**
 * The token request's transport: the post to Google's token endpoint goes to `tokenUrl`, within
 * the integrations' deadline, with no redirect followed and no retry of its own (the outbox
 * retries, with its backoff and its log of attempts).
 */
export function tokenTransporter(tokenUrl: string, timeoutMs: number): gaxios.Gaxios {
  // Node's own fetch, as every other request here; gaxios would otherwise load node-fetch.
  const transporter = new gaxios.Gaxios({ fetchImplementation: fetch, timeout: timeoutMs, redirect: 'manual' });
  transporter.interceptors.request.add({
    resolved: async (options) => {
      if (options.url.href === GOOGLE_TOKEN_ENDPOINT) options.url = new URL(tokenUrl);
      options.retry = false;
      delete options.retryConfig;
      return options;
    },
  });
  return transporter;
}

const keyId = (key: ServiceAccountKey) => createHash('sha256').update(`${key.client_email}\n${key.private_key}`).digest('hex');

/**
 * Google's service-account sign-in (the JWT bearer grant, RS256) through google-auth-library's JWT
 * client, one per key: it signs the JWT, asks for the token once for concurrent callers and reuses
 * it until shortly before it expires.
 */
export class GoogleTokens {
  private readonly clients = new Map<string, JWT>();
  private readonly transporter: gaxios.Gaxios;

  constructor(tokenUrl: string, timeoutMs: number) {
    this.transporter = tokenTransporter(tokenUrl, timeoutMs);
  }

  /** A token, or the token endpoint's answer that refused one. */
  async token(key: ServiceAccountKey): Promise<{ token: string } | { answer: ApiAnswer }> {
    const id = keyId(key);
    let client = this.clients.get(id);
    if (!client) {
      client = new JWT({ email: key.client_email, key: key.private_key, scopes: [SHEETS_SCOPE], transporter: this.transporter, eagerRefreshThresholdMillis: EXPIRY_MARGIN_MS });
      this.clients.set(id, client);
    }
    const started = performance.now();
    try {
      const { token } = await client.getAccessToken();
      // A 200 without a token is the endpoint misbehaving, not a refusal of the key.
      if (typeof token !== 'string' || token === '') return { answer: { status: null, error: 'no access token in the token endpoint’s answer', durationMs: Math.round(performance.now() - started), body: undefined } };
      return { token };
    } catch (err) {
      return { answer: answerOfError(err, Math.round(performance.now() - started)) };
    }
  }

  /** The token was refused: sign in again next time. */
  forget(key: ServiceAccountKey): void {
    this.clients.delete(keyId(key));
  }
}

/** A failed token request as the shared answer shape: the endpoint's answer, or why there was none. */
function answerOfError(err: unknown, durationMs: number): ApiAnswer {
  const e = err as { response?: { status: number; data?: unknown; headers?: Headers }; code?: unknown; message?: string; error?: { cause?: { code?: unknown } } };
  if (e.response) {
    return { status: e.response.status, error: null, durationMs, retryAfter: e.response.headers?.get('retry-after') ?? undefined, body: e.response.data };
  }
  const cause = e.error?.cause?.code;
  const error = e.code === 'TimeoutError' ? 'timeout' : String(typeof cause === 'string' ? cause : (e.code ?? e.message ?? 'request failed')).slice(0, 200);
  return { status: null, error, durationMs, body: undefined };
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
