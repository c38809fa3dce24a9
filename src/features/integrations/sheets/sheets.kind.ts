import { createPrivateKey } from 'node:crypto';
import type { Config } from '../../../platform/config.js';
import type { ApiAnswer } from '../api-client.js';
import type { AttemptOutcome } from '../outcome.js';
import { isSuccess, outcomeOfAnswer, serviceMessage, settled } from '../service-answer.js';
import type { KindDelivery, KindDeps, KindInput, KindOutcome, KindSender, KindTarget, ParsedSettings, ServiceKind } from '../service-kind.js';
import { columnLetters, GoogleTokens, quotedSheet, SheetsClient, type ServiceAccountKey } from './sheets.client.js';

/** The first two columns of every sheet; the fields follow, in the order they first came. */
export const FIXED_COLUMNS = ['submittedAt', 'submissionId'] as const;

const SPREADSHEET_ID = /^[A-Za-z0-9_-]{20,100}$/;

function parse(input: KindInput, config: Config): ParsedSettings | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string).trim() : '');
  let key: ServiceAccountKey | undefined;
  if (text('key') === '') problems.key = 'required: the service account’s JSON key';
  else {
    let raw: Record<string, unknown> = {};
    try {
      raw = JSON.parse(text('key')) as Record<string, unknown>;
    } catch {
      problems.key = 'must be the JSON key file Google gave for the service account';
    }
    const { client_email: email, private_key: privateKey, token_uri: tokenUri } = raw;
    if (problems.key) {
      // said above
    } else if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email)) problems.key = 'has no client_email';
    else if (typeof privateKey !== 'string' || !isPrivateKey(privateKey)) problems.key = 'has no usable private_key';
    else if (tokenUri !== undefined && tokenUri !== config.googleTokenUrl) problems.key = `its token_uri must be ${config.googleTokenUrl}`;
    else key = { client_email: email, private_key: privateKey, token_uri: config.googleTokenUrl };
  }
  // The spreadsheet's URL is taken too: its ID is the part after /d/.
  const spreadsheet = /\/spreadsheets\/d\/([^/?#]+)/.exec(text('spreadsheet'))?.[1] ?? text('spreadsheet');
  if (spreadsheet === '') problems.spreadsheet = 'required: the spreadsheet’s ID (in its URL, after /d/)';
  else if (!SPREADSHEET_ID.test(spreadsheet)) problems.spreadsheet = 'must be a spreadsheet ID (the part of its URL after /d/)';
  const sheet = text('sheet') || 'Sheet1';
  if (sheet.length > 100 || /[\u0000-\u001f]/.test(sheet)) problems.sheet = 'must be a sheet name of at most 100 characters';
  if (Object.keys(problems).length > 0 || !key) return { problems };
  return { settings: { spreadsheet, sheet, serviceAccount: key.client_email }, secrets: { key } };
}

function isPrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

/** A sheet's header row as this process last saw it. */
interface Header {
  spreadsheet: string;
  sheet: string;
  columns: string[];
}

/**
 * One row per submission, under a header row Formgate keeps: the first submission writes it, a
 * field with no column yet gets one at the end. Messages of one integration go one at a time and
 * in order (the kind is sequential), so each row lands after the one before. An append whose
 * answer was lost may have happened: before appending again after an uncertain attempt, or the
 * first time after a start (the process may have stopped mid-append), column B is read and a
 * submission already there is not written twice.
 */
class SheetsSender implements KindSender {
  private readonly tokens: GoogleTokens;
  private readonly headers = new Map<string, Header>();
  /** Integrations whose last append this process made and saw answered. */
  private readonly certain = new Set<string>();

  constructor(private readonly deps: KindDeps) {
    this.tokens = new GoogleTokens(deps.http);
  }

  async send(target: KindTarget, delivery: KindDelivery): Promise<KindOutcome> {
    const key = target.secrets.key as ServiceAccountKey;
    const spreadsheet = String(target.settings.spreadsheet);
    const sheet = String(target.settings.sheet);
    const signIn = await this.tokens.token(key);
    if ('answer' in signIn) return settled(tokenRefusal(signIn.answer), signIn.answer);
    const client = new SheetsClient(this.deps.http, this.deps.config.googleSheetsApiUrl, signIn.token, spreadsheet);
    const failed = (answer: ApiAnswer) => {
      this.certain.delete(target.integrationId);
      if (answer.status === 401) this.tokens.forget(key);
      return settled(sheetsOutcome(answer, sheet), answer);
    };

    const names = delivery.fields.map((f) => f.name);
    let header = this.headers.get(target.integrationId);
    // A field this process has no column for may have one by now (another instance, the owner): read the row again first.
    if (!header || header.spreadsheet !== spreadsheet || header.sheet !== sheet || names.some((n) => !header!.columns.includes(n))) {
      const read = await client.get(`${quotedSheet(sheet)}!1:1`);
      if (!isSuccess(read.answer)) return failed(read.answer);
      header = { spreadsheet, sheet, columns: read.rows[0] ?? [] };
    }
    const present = header.columns;
    const missing = [...FIXED_COLUMNS, ...names].filter((name, i, all) => !present.includes(name) && all.indexOf(name) === i);
    if (missing.length > 0) {
      const start = header.columns.length + 1;
      const written = await client.update(`${quotedSheet(sheet)}!${columnLetters(start)}1`, missing);
      if (!isSuccess(written)) return failed(written);
      header = { ...header, columns: [...header.columns, ...missing] };
    }
    this.headers.set(target.integrationId, header);

    if (!delivery.test && (delivery.attempts > 0 || !this.certain.has(target.integrationId))) {
      const ids = await client.get(`${quotedSheet(sheet)}!B:B`);
      if (!isSuccess(ids.answer)) return failed(ids.answer);
      if (ids.rows.some((row) => row[0] === delivery.submissionId)) {
        this.certain.add(target.integrationId);
        return settled({ kind: 'sent' }, ids.answer);
      }
    }

    const values: Record<string, string> = { submittedAt: delivery.createdAt, submissionId: delivery.submissionId };
    for (const field of delivery.fields) values[field.name] = field.value;
    const row = header.columns.map((column) => values[column] ?? '');
    const appended = await client.append(`${quotedSheet(sheet)}!A1`, row);
    if (!isSuccess(appended)) return failed(appended);
    this.certain.add(target.integrationId);
    return settled({ kind: 'sent' }, appended);
  }
}

/** The token endpoint's refusal: a key deleted or disabled will not work by waiting. */
function tokenRefusal(answer: ApiAnswer): AttemptOutcome {
  if (answer.status === 400 || answer.status === 401) {
    return { kind: 'disable', reason: `Google refused the service account key (HTTP ${answer.status}${serviceMessage(answer.body) ? `: ${serviceMessage(answer.body)}` : ''})` };
  }
  return outcomeOfAnswer('Google’s token endpoint', answer);
}

/** Sheets answers 400 for a range on a sheet that does not exist: as lasting as a 404. */
function sheetsOutcome(answer: ApiAnswer, sheet: string): AttemptOutcome {
  if (answer.status === 400 && /parse range/i.test(serviceMessage(answer.body) ?? '')) {
    return { kind: 'disable', reason: `the spreadsheet has no sheet named “${sheet}”` };
  }
  return outcomeOfAnswer('Google Sheets', answer);
}

export const sheetsKind: ServiceKind = {
  kind: 'sheets',
  label: 'Google Sheets',
  item: 'row',
  help: 'Create a service account and a JSON key in Google Cloud, enable the Sheets API, and share the spreadsheet with the service account’s email as an Editor.',
  sequential: true,
  fields: [
    { name: 'key', label: 'Service account key (JSON)', option: '--key-file <file>', fromFile: true, secret: true, required: true, multiline: true, placeholder: '{"type": "service_account", …}' },
    { name: 'spreadsheet', label: 'Spreadsheet ID', option: '--spreadsheet <id>', required: true, placeholder: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' },
    { name: 'sheet', label: 'Sheet name', option: '--sheet <name>', placeholder: 'Sheet1' },
  ],
  parse,
  createSender: (deps) => new SheetsSender(deps),
};
