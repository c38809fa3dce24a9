import { z } from 'zod';
import {
  ALTCHA_COMPLEXITIES,
  BOT_CHECK_VENDORS,
  FILES_MODES,
  SPAM_FILTER_MODES,
  formLanguages,
  notifyModes,
} from '../forms/form.types.js';
import { SERVICE_KINDS, type ServiceKind } from '../integrations/integration.service.js';
import { CHAT_KINDS } from '../integrations/integration.types.js';

/** `${NAME}`: a secret is named in the file, and read from the environment when the file is used. */
export const SECRET_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

const secretMessage = 'must be a ${VARIABLE} reference to an environment variable (or null to clear it), never the secret itself';

/** A secret: a reference to an environment variable, or null to clear it. */
const secret = z.string().regex(SECRET_REFERENCE, secretMessage).nullable().meta({ description: 'A ${VARIABLE} reference, read from the environment; null clears it.' });
const secretOnly = z.string().regex(SECRET_REFERENCE, secretMessage).meta({ description: 'A ${VARIABLE} reference, read from the environment.' });

const text = z.string();
const list = z.array(z.string());

/** The settings of a form that are secrets: the file names them only by reference. */
export const SECRET_SETTINGS = ['accessKey', 'turnstileSecret', 'hcaptchaSecret', 'recaptchaSecret'] as const;
export type SecretSetting = (typeof SECRET_SETTINGS)[number];

/**
 * A form's settings as the management API shows them. A setting left out is left as it is; null
 * clears one that may be empty. The form service checks each value when it is applied.
 */
export const settingsSchema = z
  .strictObject({
    isActive: z.boolean(),
    successUrl: text.nullable(),
    errorUrl: text.nullable(),
    allowedRedirectHosts: list,
    turnstileSiteKey: text.nullable(),
    blockedTerms: list,
    blockedEmails: list,
    allowedOrigins: list,
    maxLinks: z.number().int().nullable(),
    retentionDays: z.number().int().nullable(),
    storeIp: z.enum(['full', 'none']),
    notifyMode: z.enum(notifyModes),
    botCheck: z.enum(BOT_CHECK_VENDORS),
    hcaptchaSiteKey: text.nullable(),
    recaptchaSiteKey: text.nullable(),
    recaptchaMinScore: z.number(),
    altchaComplexity: z.enum(ALTCHA_COMPLEXITIES),
    minFillSeconds: z.number().int(),
    spamFilter: z.enum(SPAM_FILTER_MODES),
    notifySubject: text.nullable(),
    autoReply: z.strictObject({ enabled: z.boolean(), field: text, subject: text.nullable(), body: text.nullable() }).partial(),
    autoReplyDailyLimit: z.number().int(),
    thanksTitle: text.nullable(),
    thanksMessage: text.nullable(),
    language: z.enum(formLanguages),
    requiredFields: list,
    files: z.enum(FILES_MODES),
    maxFiles: z.number().int(),
    maxFileBytes: z.number().int(),
    maxTotalBytes: z.number().int(),
    fileTypes: list,
    accessKey: secret,
    turnstileSecret: secret,
    hcaptchaSecret: secret,
    recaptchaSecret: secret,
  })
  .partial();

/** A chat or push channel a form's submissions are also sent to; a form has one of each kind and name. */
export const chatIntegrationSchema = z.strictObject({
  kind: z.enum(CHAT_KINDS),
  name: z.string().min(1).max(100),
  enabled: z.boolean().optional(),
  /** The webhook or topic URL: a secret. */
  url: secretOnly.optional(),
  /** The bot token (telegram) or access token (ntfy): a secret. */
  token: secretOnly.optional(),
  chatId: z.string().optional(),
});

/**
 * A service that keeps the data (a spreadsheet, a database, a mailing list): its fields by name,
 * as the kind declares them. A secret left out keeps the stored one; so does a setting left out.
 */
function serviceIntegrationSchema(kind: ServiceKind) {
  const fields: Record<string, z.ZodType> = {};
  for (const field of kind.fields) {
    const value = field.secret ? secretOnly : field.repeated ? z.array(z.string()) : z.string();
    fields[field.name] = (field.required && !field.secret ? value : value.optional()).meta({ description: field.label });
  }
  return z.strictObject({ kind: z.literal(kind.kind), name: z.string().min(1).max(100), enabled: z.boolean().optional(), ...fields }).meta({ description: kind.label });
}

/** A service kind's entry, in the terms the rest of the code reads it. */
export interface ServiceIntegrationEntry {
  kind: string;
  name: string;
  enabled?: boolean | undefined;
  [field: string]: string | string[] | boolean | undefined;
}

export type ChatIntegrationEntry = z.infer<typeof chatIntegrationSchema>;

/** An integration of a form; a form has one of each kind and name. */
export const integrationSchema = z.discriminatedUnion('kind', [chatIntegrationSchema, ...SERVICE_KINDS.map(serviceIntegrationSchema)]) as unknown as z.ZodType<
  ChatIntegrationEntry | ServiceIntegrationEntry
>;

export const isChatEntry = (entry: IntegrationEntry): entry is ChatIntegrationEntry => (CHAT_KINDS as readonly string[]).includes(entry.kind);

export const hookSchema = z.strictObject({ targetUrl: z.string() });

const keyPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export const formEntrySchema = z.strictObject({
  key: z.string().regex(keyPattern, 'must be 1 to 100 letters, digits, dots, dashes or underscores, starting with a letter or digit'),
  name: z.string().min(1).max(200),
  settings: settingsSchema.optional(),
  /** Notification addresses; left out, the form's list is left as it is. */
  recipients: z.array(z.string()).optional(),
  /** Left out, the form's integrations are left as they are; listed, they are exactly these. */
  integrations: z.array(integrationSchema).optional(),
  /** Left out, the form's hooks are left as they are; listed, they are exactly these. */
  hooks: z.array(hookSchema).optional(),
});

/** The configuration file (docs/config-as-code.md): one account's forms. */
export const configFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    account: z.string().min(1).optional().meta({ description: 'The account, by ID or email; through --server, the API key’s own.' }),
    forms: z.array(formEntrySchema),
  })
  .superRefine((file, ctx) => {
    const keys = new Set<string>();
    file.forms.forEach((form, index) => {
      if (keys.has(form.key)) ctx.addIssue({ code: 'custom', path: ['forms', index, 'key'], message: `"${form.key}" names two forms` });
      keys.add(form.key);
      const named = new Set<string>();
      form.integrations?.forEach((integration, i) => {
        const id = `${integration.kind} "${integration.name}"`;
        if (named.has(id)) ctx.addIssue({ code: 'custom', path: ['forms', index, 'integrations', i, 'name'], message: `${id} is listed twice` });
        named.add(id);
      });
    });
  });

export type ConfigFile = z.infer<typeof configFileSchema>;
export type FormEntry = z.infer<typeof formEntrySchema>;
export type FileSettings = z.infer<typeof settingsSchema>;
export type IntegrationEntry = z.infer<typeof integrationSchema>;

/** The file's JSON Schema, for editors (`"$schema": "<BASE_URL>/v1/config.schema.json"`). */
export function configFileJsonSchema(id: string): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(configFileSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>),
    $id: id,
    title: 'Formgate configuration file',
  };
}
