import { createPublicKey, createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { bearer, json, StandInServer, type StandInRequest } from './service-stand-in.js';

const SCOPE = 'https://www.googleapis.com/auth/spreadsheets';

/**
 * Google's token endpoint and the Sheets API's values methods, on loopback, checking what Google
 * checks: the JWT's RS256 signature against the service account's public key, its `aud` (the
 * token URL), its scope and expiry; a bearer token it issued; a spreadsheet shared with the
 * account; `valueInputOption=RAW`. Cells are kept as the text written.
 */
export class GoogleStandIn {
  readonly server = new StandInServer((req, res) => this.handle(req, res));
  private readonly publicKeys = new Map<string, string>();
  private readonly tokens = new Map<string, string>();
  readonly spreadsheets = new Map<string, { sharedWith: Set<string>; sheets: Map<string, string[][]> }>();
  /** The next append is written, then the stand-in stops before answering and starts again. */
  private restartOnAppend = false;
  tokenRequests = 0;

  async start(): Promise<void> {
    await this.server.start();
  }

  get tokenUrl(): string {
    return `${this.server.url}/token`;
  }

  /** A new service account: its key file as Google gives it, its public half kept here. */
  serviceAccount(name: string): { client_email: string; key: string } {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const email = `${name}@formgate-test.iam.gserviceaccount.com`;
    this.publicKeys.set(email, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const file = {
      type: 'service_account',
      project_id: 'formgate-test',
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: '1234567890',
      token_uri: this.tokenUrl,
    };
    return { client_email: email, key: JSON.stringify(file, null, 2) };
  }

  createSpreadsheet(id: string, sharedWith: string[], sheets = ['Sheet1']): void {
    this.spreadsheets.set(id, { sharedWith: new Set(sharedWith), sheets: new Map(sheets.map((s) => [s, []])) });
  }

  rows(id: string, sheet = 'Sheet1'): string[][] {
    return this.spreadsheets.get(id)?.sheets.get(sheet) ?? [];
  }

  restartAfterNextAppend(): void {
    this.restartOnAppend = true;
  }

  private handle(req: StandInRequest, res: ServerResponse): void | Promise<void> {
    if (req.method === 'POST' && req.path === '/token') return this.token(req, res);
    const m = /^\/v4\/spreadsheets\/([^/]+)\/values\/([^/]+?)(:append)?$/.exec(req.path);
    if (!m) return json(res, 404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
    const email = this.tokens.get(bearer(req) ?? '');
    if (!email) return json(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
    const book = this.spreadsheets.get(decodeURIComponent(m[1]!));
    if (!book) return json(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND' } });
    if (!book.sharedWith.has(email)) return json(res, 403, { error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' } });
    const range = decodeURIComponent(m[2]!);
    const parsed = /^'((?:[^']|'')+)'!([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?$/.exec(range);
    const rows = parsed ? book.sheets.get(parsed[1]!.replace(/''/g, "'")) : undefined;
    if (!parsed || !rows) return json(res, 400, { error: { code: 400, message: `Unable to parse range: ${range}`, status: 'INVALID_ARGUMENT' } });
    const [, , col1, row1, col2] = parsed;
    if (req.method === 'GET') {
      if (row1 === '1') return json(res, 200, { range, majorDimension: 'ROWS', ...(rows[0]?.length ? { values: [rows[0]] } : {}) });
      const index = columnIndex(col1!);
      const values = rows.map((r) => (r[index] === undefined ? [] : [r[index]!]));
      while (values.length > 0 && values[values.length - 1]!.length === 0) values.pop();
      return json(res, 200, { range, majorDimension: 'ROWS', ...(values.length ? { values } : {}) });
    }
    if (req.query.get('valueInputOption') !== 'RAW') return json(res, 400, { error: { code: 400, message: 'valueInputOption must be RAW here', status: 'INVALID_ARGUMENT' } });
    const body = JSON.parse(req.body) as { values: unknown[][] };
    const written = body.values[0]!.map((v) => String(v));
    if (req.method === 'PUT') {
      const r = Number(row1) - 1;
      while (rows.length <= r) rows.push([]);
      const row = rows[r]!;
      const start = columnIndex(col1!);
      written.forEach((v, i) => (row[start + i] = v));
      for (let i = 0; i < row.length; i++) row[i] ??= '';
      return json(res, 200, { spreadsheetId: m[1], updatedRange: range, updatedCells: written.length });
    }
    if (req.method === 'POST' && m[3] && col2 === undefined) {
      rows.push(written);
      if (this.restartOnAppend) {
        this.restartOnAppend = false;
        // Written, but the answer never leaves: the connection drops with the stand-in.
        return this.server.restart();
      }
      return json(res, 200, { spreadsheetId: m[1], updates: { updatedRange: `'x'!A${rows.length}`, updatedRows: 1 } });
    }
    return json(res, 400, { error: { code: 400, message: 'unsupported', status: 'INVALID_ARGUMENT' } });
  }

  private token(req: StandInRequest, res: ServerResponse): void {
    this.tokenRequests++;
    const form = new URLSearchParams(req.body);
    const refuse = (description: string) => json(res, 400, { error: 'invalid_grant', error_description: description });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('wrong grant_type');
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (!header || !claims || !signature) return refuse('Invalid JWT');
    const c = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { iss?: string; aud?: string; scope?: string; exp?: number; iat?: number };
    const h = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string };
    const publicKey = this.publicKeys.get(c.iss ?? '');
    if (h.alg !== 'RS256' || !publicKey) return refuse('Invalid JWT Signature.');
    const valid = createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(createPublicKey(publicKey), Buffer.from(signature, 'base64url'));
    if (!valid) return refuse('Invalid JWT Signature.');
    if (c.aud !== this.tokenUrl) return refuse('Invalid JWT: aud');
    if (!(c.scope ?? '').split(' ').includes(SCOPE)) return refuse('Invalid JWT: scope');
    const now = Math.floor(Date.now() / 1000);
    if (typeof c.exp !== 'number' || c.exp <= now || c.exp - (c.iat ?? 0) > 3600) return refuse('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, c.iss!);
    json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }
}

function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return Math.max(0, n - 1);
}
