import type { Config } from '../../../platform/config.js';
import { cut } from '../message.js';
import { isSuccess, outcomeOfAnswer, settled } from '../service-answer.js';
import type { KindDelivery, KindDeps, KindInput, KindOutcome, KindSender, KindTarget, ParsedSettings, ServiceKind } from '../service-kind.js';
import { NotionClient, type NotionProperty } from './notion.client.js';

/** Notion's limits: 2000 characters of text in a rich-text object, 100 blocks in a request. */
const MAX_TEXT = 2000;
const MAX_BLOCKS = 100;
const DATABASE_ID = /^[0-9a-f]{32}$/;

function parse(input: KindInput, _config: Config): ParsedSettings | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string).trim() : '');
  const token = text('token');
  if (token === '') problems.token = 'required: the integration’s internal token (ntn_… or secret_…)';
  else if (token.length > 300 || /\s/.test(token)) problems.token = 'must be one token, without spaces';
  // The database's URL is taken too: its ID is the 32 hex digits before the `?`.
  const raw = text('database');
  const hex = (/([0-9a-f]{32})(?:[?#]|$)/i.exec(raw.replace(/-/g, ''))?.[1] ?? '').toLowerCase();
  if (raw === '') problems.database = 'required: the database ID (from its URL)';
  else if (!DATABASE_ID.test(hex)) problems.database = 'must be a database ID: 32 hexadecimal digits, from the database’s URL';
  if (Object.keys(problems).length > 0) return { problems };
  const database = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { settings: { database }, secrets: { token } };
}

const richText = (value: string) => [{ type: 'text', text: { content: cut(value, MAX_TEXT) } }];
const CHECKED = new Set(['on', 'true', 'yes', '1', 'checked']);

/** A field's value in a property's type, or undefined when it does not fit the type (it then goes into the body). */
function propertyValue(type: string, value: string): unknown {
  const v = value.trim();
  switch (type) {
    case 'title':
      return { title: richText(value) };
    case 'rich_text':
      return { rich_text: richText(value) };
    case 'email':
    case 'phone_number':
      return v === '' ? { [type]: null } : { [type]: cut(v, 200, '') };
    case 'url':
      return v === '' ? { url: null } : URL.canParse(v) ? { url: cut(v, 2000, '') } : undefined;
    case 'number':
      return v === '' ? { number: null } : Number.isFinite(Number(v)) ? { number: Number(v) } : undefined;
    case 'checkbox':
      return { checkbox: CHECKED.has(v.toLowerCase()) };
    case 'select':
      // Notion refuses a comma in an option's name.
      return v === '' ? { select: null } : { select: { name: cut(v.replace(/,/g, ' '), 100, '') } };
    case 'multi_select':
      return { multi_select: v.split(',').map((s) => s.trim()).filter((s) => s !== '').map((name) => ({ name: cut(name, 100, '') })) };
    case 'date':
      return /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)) ? { date: { start: v } } : undefined;
    default:
      return undefined;
  }
}

/** The page of one submission: matching fields in their properties, the title, the rest as a list in the body. */
export function pageOf(dataSourceId: string, properties: NotionProperty[], delivery: KindDelivery): Record<string, unknown> {
  const byName = new Map(properties.map((p) => [p.name.toLowerCase(), p]));
  const values: Record<string, unknown> = {};
  const rest: Array<{ name: string; value: string }> = [];
  for (const field of delivery.fields) {
    const property = byName.get(field.name.toLowerCase());
    const value = property && !(property.name in values) ? propertyValue(property.type, field.value) : undefined;
    if (property && value !== undefined) values[property.name] = value;
    else rest.push(field);
  }
  const title = properties.find((p) => p.type === 'title');
  if (title && !(title.name in values)) {
    // No field names the title: the first text field takes it.
    const index = rest.findIndex((f) => f.value.trim() !== '');
    const text = index >= 0 ? rest.splice(index, 1)[0]!.value : `Submission ${delivery.submissionId}`;
    values[title.name] = { title: richText(text) };
  }
  const children = rest.slice(0, MAX_BLOCKS).map((f) => ({ object: 'block', type: 'bulleted_list_item', bulleted_list_item: { rich_text: richText(`${f.name}: ${f.value}`) } }));
  return { parent: { type: 'data_source_id', data_source_id: dataSourceId }, properties: values, ...(children.length > 0 ? { children } : {}) };
}

/**
 * One page per submission in the database's first data source; the schema is read at most every
 * 10 minutes, and again at once when Notion refuses a page as not fitting it.
 */
class NotionSender implements KindSender {
  private readonly client: NotionClient;

  constructor(deps: KindDeps) {
    this.client = new NotionClient(deps.http, deps.config.notionApiUrl);
  }

  async send(target: KindTarget, delivery: KindDelivery): Promise<KindOutcome> {
    const token = String(target.secrets.token);
    const database = String(target.settings.database);
    const found = await this.client.schema(token, database);
    if ('answer' in found) {
      if (found.reason) return settled({ kind: 'failed', reason: found.reason }, found.answer);
      return settled(outcomeOfAnswer('Notion', found.answer), found.answer);
    }
    const answer = await this.client.createPage(token, pageOf(found.schema.dataSourceId, found.schema.properties, delivery));
    if (!isSuccess(answer)) this.client.forget(token, database);
    return settled(outcomeOfAnswer('Notion', answer), answer);
  }
}

export const notionKind: ServiceKind = {
  kind: 'notion',
  label: 'Notion',
  item: 'page',
  help: 'Create an internal integration at notion.so/profile/integrations, copy its token, and share the database with it (⋯ → Connections); the database ID is in its URL.',
  sequential: true,
  fields: [
    { name: 'token', label: 'Internal integration token', option: '--token <token>', secret: true, required: true, placeholder: 'ntn_…' },
    { name: 'database', label: 'Database ID', option: '--database <id>', required: true, placeholder: 'https://www.notion.so/…/1a2b3c…?v=… or its 32-digit ID' },
  ],
  parse,
  createSender: (deps) => new NotionSender(deps),
};
