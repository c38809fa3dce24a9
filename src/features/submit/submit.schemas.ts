import { MAX_FIELD_NAME_LENGTH, MAX_FIELDS } from './submit-fields.js';

/**
 * What the submit endpoint accepts, for the OpenAPI document. The content-type parsers enforce
 * it (see submit-fields.ts); these schemas describe the result, they do not validate it.
 */
const scalar = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] as const;

const fieldNames = { maxLength: MAX_FIELD_NAME_LENGTH } as const;

const controlFields = {
  _gotcha: { type: 'string', description: 'Honeypot: leave empty (also _honey, botfield, url, website)' },
  'cf-turnstile-response': { type: 'string', description: "The bot-check token, when the form requires one" },
  access_key: { type: 'string', description: "The form's access key, when it has one" },
  redirect: { type: 'string', description: 'Where to go after success (absolute URL on an allowed host; redirect mode)' },
} as const;

const jsonBody = {
  type: 'object',
  description: 'A flat object: each value a string, number, boolean, null or an array of those. Stored as given.',
  maxProperties: MAX_FIELDS,
  propertyNames: fieldNames,
  properties: controlFields,
  additionalProperties: { anyOf: [...scalar, { type: 'array', items: { anyOf: scalar } }] },
} as const;

const textFieldsBody = (what: string) =>
  ({
    type: 'object',
    description: `${what}: field name to text; a repeated name becomes an array in the order sent.`,
    maxProperties: MAX_FIELDS,
    propertyNames: fieldNames,
    properties: controlFields,
    additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
  }) as const;

export const submitBodySchema = {
  content: {
    'application/json': { schema: jsonBody },
    'application/x-www-form-urlencoded': { schema: textFieldsBody('An HTML form post') },
    'multipart/form-data': { schema: textFieldsBody('An HTML form post with enctype multipart/form-data (file parts are ignored)') },
  },
} as const;

export const submitHeadersSchema = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: '^[\\x20-\\x7e]{1,255}$',
      description: 'Scoped to the form: a repeat within 24 hours returns the first result (cached: true) and stores nothing',
    },
  },
} as const;
