/** JSON schemas of the write API's resources (docs/api.md, Writes). */

export const managedFormSchema = {
  type: 'object',
  required: ['id', 'key', 'name', 'isActive', 'createdAt', 'updatedAt', 'settings', 'recipients'],
  properties: {
    id: { type: 'string' },
    key: { type: ['string', 'null'], description: 'The stable name a configuration file gives the form; unique per account' },
    name: { type: 'string' },
    isActive: { type: 'integer', enum: [0, 1] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    settings: {
      type: 'object',
      description: 'Every setting of the form, as the dashboard has them (docs/api.md); secrets (accessKey, turnstileSecret, hcaptchaSecret, recaptchaSecret) only as "set" or null',
      additionalProperties: true,
    },
    recipients: { type: 'array', items: { type: 'string' }, description: 'Addresses notified of submissions (each confirms by email first)' },
  },
} as const;

const formInputProperties = {
  name: { type: 'string', maxLength: 200 },
  isActive: { enum: [true, false, 0, 1], description: 'Whether the form takes submissions: true or 1, false or 0' },
  key: { type: ['string', 'null'], maxLength: 100, description: 'Letters, digits, dots, dashes and underscores, starting with a letter or digit; null removes it' },
  settings: {
    type: 'object',
    description: 'Settings to change, by name (docs/api.md); null clears one; a secret given as "set" keeps its value',
    additionalProperties: true,
  },
  recipients: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 254 }, description: 'The whole list of notification addresses (at most 5)' },
} as const;

export const createFormBodySchema = { type: 'object', required: ['name'], additionalProperties: false, properties: formInputProperties } as const;
export const updateFormBodySchema = { type: 'object', additionalProperties: false, properties: formInputProperties } as const;

export const integrationSchema = {
  type: 'object',
  required: ['id', 'formId', 'kind', 'name', 'enabled', 'createdAt'],
  description: "An integration; secrets (webhook URLs, tokens, keys) only as \"set\" or null; each kind's settings beside",
  additionalProperties: true,
  properties: {
    id: { type: 'string' },
    formId: { type: 'string' },
    kind: { type: 'string' },
    name: { type: 'string' },
    enabled: { type: 'boolean' },
    disabledReason: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;

export const integrationInputSchema = (required: readonly string[]) =>
  ({
    type: 'object',
    required,
    description: "The kind's settings and secrets as `formgate integrations add` takes them (docs/integrations.md); secrets are write-only",
    additionalProperties: true,
    properties: {
      kind: { type: 'string', maxLength: 50 },
      name: { type: 'string', maxLength: 200 },
      enabled: { type: 'boolean' },
      url: { type: ['string', 'null'], maxLength: 2048 },
      token: { type: ['string', 'null'], maxLength: 4096 },
      chatId: { type: ['string', 'null'], maxLength: 100 },
    },
  }) as const;

export const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;
export const integrationParams = {
  type: 'object',
  required: ['id', 'integrationId'],
  properties: { id: { type: 'string' }, integrationId: { type: 'string' } },
} as const;
