import type { Config } from '../../../platform/config.js';
import { outcomeOfAnswer, serviceMessage, settled } from '../service-answer.js';
import type { KindDelivery, KindDeps, KindInput, KindOutcome, KindSender, KindTarget, ParsedSettings, ServiceKind } from '../service-kind.js';
import { AirtableClient } from './airtable.client.js';

const BASE_ID = /^app[A-Za-z0-9]{14}$/;
const MAX_MAPPINGS = 100;

function parse(input: KindInput, _config: Config): ParsedSettings | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string).trim() : '');
  const token = text('token');
  if (token === '') problems.token = 'required: a personal access token (pat…)';
  else if (token.length > 300 || /\s/.test(token)) problems.token = 'must be one token, without spaces';
  const base = /\b(app[A-Za-z0-9]{14})\b/.exec(text('base'))?.[1] ?? text('base');
  if (base === '') problems.base = 'required: the base ID (app…, in the base’s URL)';
  else if (!BASE_ID.test(base)) problems.base = 'must be a base ID: app and 14 letters or digits';
  const table = text('table');
  if (table === '') problems.table = 'required: the table’s name or ID (tbl…)';
  else if (table.length > 200 || /[\u0000-\u001f]/.test(table)) problems.table = 'must be a table name or ID of at most 200 characters';
  const lines = input.map === undefined ? [] : Array.isArray(input.map) ? input.map : [input.map];
  const map: Record<string, string> = {};
  for (const line of lines.map((l) => l.trim()).filter((l) => l !== '')) {
    const at = line.indexOf('=');
    const field = line.slice(0, at).trim();
    const column = line.slice(at + 1).trim();
    if (at < 1 || field === '' || column === '') problems.map = `“${line}” must be field=column`;
    else map[field] = column;
  }
  if (Object.keys(map).length > MAX_MAPPINGS) problems.map = `at most ${MAX_MAPPINGS} mappings`;
  if (Object.keys(problems).length > 0) return { problems };
  return { settings: { base, table, map }, secrets: { token } };
}

/**
 * One record per submission (`typecast: true`: Airtable turns the text into each column's
 * type). A field goes to the column of its name, or the one its mapping names; Airtable refuses a
 * column the table does not have (422 UNKNOWN_FIELD_NAME), a permanent error that names it. A 429
 * is waited out: Retry-After when Airtable sends one, else the 30 seconds it asks (half the retry
 * policy's base, one minute by default).
 */
class AirtableSender implements KindSender {
  private readonly client: AirtableClient;

  constructor(private readonly deps: KindDeps) {
    this.client = new AirtableClient(deps.http, deps.config.airtableApiUrl);
  }

  async send(target: KindTarget, delivery: KindDelivery): Promise<KindOutcome> {
    const map = (target.settings.map ?? {}) as Record<string, string>;
    const fields: Record<string, string> = {};
    for (const field of delivery.fields) fields[map[field.name] ?? field.name] = field.value;
    const table = String(target.settings.table);
    const answer = await this.client.createRecord(String(target.secrets.token), String(target.settings.base), table, fields);
    const error = (answer.body as { error?: { type?: string; message?: string } } | undefined)?.error;
    if (answer.status === 422 && error?.type === 'UNKNOWN_FIELD_NAME') {
      const column = /"([^"]*)"/.exec(error.message ?? '')?.[1] ?? serviceMessage(answer.body) ?? 'a column';
      return settled({ kind: 'failed', reason: `the table “${table}” has no column “${column}”: add it in Airtable, or map the field to a column` }, answer);
    }
    const outcome = outcomeOfAnswer('Airtable', answer);
    if (answer.status === 429 && outcome.kind === 'retry' && outcome.retryAfterMs === undefined) {
      return settled({ ...outcome, retryAfterMs: this.deps.config.mailRetryBaseMs / 2 }, answer);
    }
    return settled(outcome, answer);
  }
}

export const airtableKind: ServiceKind = {
  kind: 'airtable',
  label: 'Airtable',
  item: 'record',
  help: 'Create a personal access token at airtable.com/create/tokens with the scope data.records:write and access to the base; the base ID starts with app, in the base’s URL.',
  sequential: true,
  fields: [
    { name: 'token', label: 'Personal access token', option: '--token <token>', secret: true, required: true, placeholder: 'pat…' },
    { name: 'base', label: 'Base ID', option: '--base <id>', required: true, placeholder: 'appXXXXXXXXXXXXXX' },
    { name: 'table', label: 'Table (name or ID)', option: '--table <name>', required: true, placeholder: 'Leads' },
    { name: 'map', label: 'Field to column, one field=column a line', option: '--map <field=column>', repeated: true, placeholder: 'email=Email' },
  ],
  parse,
  createSender: (deps) => new AirtableSender(deps),
};
