import { config as loadDotenv } from 'dotenv';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce.number().int().min(0).max(65535);
const nonNegativeInt = z.coerce.number().int().min(0);

const databaseUrl = z
  .string()
  .refine((url) => url.startsWith('sqlite:') || /^postgres(ql)?:\/\//.test(url), {
    message: 'must be sqlite:<path> or postgres://…',
  });

/** An IP address or a CIDR range, as proxy-addr (Fastify's trustProxy) reads them. */
function isAddressOrRange(value: string): boolean {
  if (isIP(value)) return true;
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

/** `false`, a hop count 1–10 (`true` = 1), or a comma list of proxy addresses/ranges. */
const trustProxy = z.string().transform((value, ctx): false | number | string[] => {
  const v = value.trim().toLowerCase();
  if (['false', '0', 'no'].includes(v)) return false;
  if (['true', 'yes'].includes(v)) return 1;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops >= 1 && hops <= 10) return hops;
  } else {
    const list = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
    if (list.length > 0 && list.every(isAddressOrRange)) return list;
  }
  ctx.addIssue({ code: 'custom', message: 'must be false, a hop count 1-10, or a comma list of proxy IPs/CIDRs' });
  return z.NEVER;
});

const timeoutMs = z.coerce.number().int().min(100).max(3_600_000);

const envSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: databaseUrl.default('sqlite:./data/formgate.db'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  DEFAULT_PLAN: z.enum(['free', 'pro', 'business']).default('free'),
  TURNSTILE_SECRET_KEY: z.string().min(1).optional(),
  TURNSTILE_VERIFY_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  HCAPTCHA_SECRET_KEY: z.string().min(1).optional(),
  HCAPTCHA_VERIFY_URL: z.url({ protocol: /^https?$/ }).default('https://api.hcaptcha.com/siteverify'),
  RECAPTCHA_SECRET_KEY: z.string().min(1).optional(),
  RECAPTCHA_VERIFY_URL: z.url({ protocol: /^https?$/ }).default('https://www.google.com/recaptcha/api/siteverify'),
  HOOK_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
  HOOK_ALLOW_PRIVATE_TARGETS: booleanString.default(false),
  SUBMIT_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  SUBMIT_RATE_LIMIT_PER_MINUTE: nonNegativeInt.default(60),
  COUNTRY_HEADER: z
    .string()
    .min(1)
    .transform((name) => name.toLowerCase())
    .optional(),
  TRUST_PROXY: trustProxy.default(false),
  REQUEST_TIMEOUT_MS: timeoutMs.default(30_000),
  SHUTDOWN_TIMEOUT_MS: timeoutMs.default(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DASHBOARD_SIGNUP: z.enum(['open', 'invite', 'closed']).default('open'),
  PASSWORD_LOGIN: booleanString.default(true),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).max(1000).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(4000).optional(),
  OIDC_DISPLAY_NAME: z.string().trim().min(1).max(60).default('Single sign-on'),
  OIDC_SCOPES: z
    .string()
    .trim()
    .refine((scopes) => scopes.split(/\s+/).includes('openid'), 'must include openid')
    .default('openid email profile'),
  METRICS_PORT: port.optional(),
  // At most an hour: the retention purge runs at least hourly (docs/spam-and-privacy.md).
  RETENTION_PURGE_INTERVAL_MS: z.coerce.number().int().min(1000).max(3_600_000).default(3_600_000),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().trim().min(3).max(320).refine((v) => !/[\r\n]/.test(v), 'must be one line').optional(),
  MAIL_RETRY_BASE_MS: z.coerce.number().int().min(1).max(86_400_000).default(60_000),
  OUTBOX_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  TELEGRAM_API_URL: z.url({ protocol: /^https$/ }).default('https://api.telegram.org'),
  GOOGLE_SHEETS_API_URL: z.url({ protocol: /^https?$/ }).default('https://sheets.googleapis.com'),
  GOOGLE_TOKEN_URL: z.url({ protocol: /^https?$/ }).default('https://oauth2.googleapis.com/token'),
  AIRTABLE_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.airtable.com'),
  NOTION_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.notion.com'),
  MAILCHIMP_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  ADMIN_EMAIL: z.email().max(254).optional(),
  ADMIN_PASSWORD: z.string().min(8).max(1024).optional(),
  FILES_STORAGE: z.enum(['local', 's3']).default('local'),
  FILES_DIR: z.string().min(1).default('./data/files'),
  FILES_MAX_BYTES: z.coerce.number().int().min(1024).max(5 * 1024 ** 3).default(25 * 1024 * 1024),
  FILES_QUOTA_BYTES: z.coerce.number().int().min(0).default(1024 ** 3),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z.string().min(1).optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: booleanString.default(false),
  CLAMD_URL: z.url({ protocol: /^tcp$/ }).optional(),
  // `formgate mcp` only: the API key the stdio MCP server acts with.
  FORMGATE_API_KEY: z.string().min(1).optional(),
});

/**
 * Variables that can hold a secret (docs/configuration.md): each may be given as `<NAME>_FILE`
 * instead, a path whose content is the value, as Docker and Kubernetes mount secrets. Names of
 * settings this build does not have yet are listed too, so a deployment written for a later
 * release fails on nothing here.
 */
export const SECRET_VARIABLES = [
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'TURNSTILE_SECRET_KEY',
  'HCAPTCHA_SECRET_KEY',
  'RECAPTCHA_SECRET_KEY',
  'OIDC_CLIENT_SECRET',
  'S3_SECRET_ACCESS_KEY',
  'ADMIN_PASSWORD',
  'FORMGATE_API_KEY',
] as const;

/** The content of a secret file, one trailing newline trimmed; `what` names it in the error. */
export function readSecretFile(path: string, what: string): string {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new ConfigError(`Invalid configuration: ${what}: cannot read ${path} (${reason}).`);
  }
  return content.replace(/\r?\n$/, '');
}

/** Replaces every `<NAME>_FILE` by `<NAME>` holding the file's content (one trailing newline trimmed). */
function resolveSecretFiles(env: Record<string, string>): Record<string, string> {
  const resolved = { ...env };
  for (const name of SECRET_VARIABLES) {
    const path = env[`${name}_FILE`];
    delete resolved[`${name}_FILE`];
    if (path === undefined) continue;
    if (env[name] !== undefined) {
      throw new ConfigError(`Invalid configuration: ${name} and ${name}_FILE are both set; set only one of them.`);
    }
    const value = readSecretFile(path, `${name}_FILE`);
    if (value !== '') resolved[name] = value;
  }
  return resolved;
}

export type Plan = 'free' | 'pro' | 'business';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  readonly defaultPlan: Plan;
  readonly turnstileSecretKey: string | undefined;
  readonly turnstileVerifyUrl: string;
  /** Default hCaptcha secret (a form's own secret wins). */
  readonly hcaptchaSecretKey: string | undefined;
  readonly hcaptchaVerifyUrl: string;
  /** Default reCAPTCHA secret (a form's own secret wins). */
  readonly recaptchaSecretKey: string | undefined;
  readonly recaptchaVerifyUrl: string;
  readonly hookTimeoutMs: number;
  readonly hookAllowPrivateTargets: boolean;
  readonly submitMaxBodyBytes: number;
  readonly submitRateLimitPerMinute: number;
  readonly countryHeader: string | undefined;
  /** false, a hop count, or the proxies' addresses/ranges (docs/configuration.md, TRUST_PROXY). */
  readonly trustProxy: false | number | readonly string[];
  readonly requestTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly logLevel: string;
  readonly dashboardSignup: 'open' | 'invite' | 'closed';
  /** Audit events older than this are purged (with the retention purge, at least hourly). */
  readonly auditRetentionDays: number;
  /** false: the dashboard offers single sign-on only (no password log-in, sign-up or reset). */
  readonly passwordLogin: boolean;
  /** Single sign-on through an OpenID Connect provider; undefined = off. */
  readonly oidc: OidcConfig | undefined;
  /** Port of the Prometheus listener; undefined = no metrics endpoint. */
  readonly metricsPort: number | undefined;
  readonly retentionPurgeIntervalMs: number;
  /** Unset: no email is sent and no email code is loaded (docs/email.md). */
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly mailRetryBaseMs: number;
  /** How long an outbox claim lasts unless its instance renews it: the wait before a crashed instance's sends are taken back. */
  readonly outboxLeaseMs: number;
  /** Bot API base of Telegram integrations (a self-hosted Bot API server, or a test stand-in). */
  readonly telegramApiUrl: string;
  /** The API bases of the services that keep the data (docs/integrations.md); a proxy or a test stand-in may replace them. */
  readonly googleSheetsApiUrl: string;
  /** The one token endpoint a service-account key's `token_uri` may name. */
  readonly googleTokenUrl: string;
  readonly airtableApiUrl: string;
  readonly notionApiUrl: string;
  /** Unset: each Mailchimp key's data centre names its base (`https://us21.api.mailchimp.com`). */
  readonly mailchimpApiUrl: string | undefined;
  /** The first account made at a start with no account at all (docs/configuration.md); both or neither are set. */
  readonly bootstrapAdmin: { readonly email: string; readonly password: string } | undefined;
  /** Where uploaded files are kept (docs/files.md, Storage). */
  readonly files: FilesConfig;
  /** clamd's address (`tcp://host:3310`); undefined = files are not scanned. */
  readonly clamdUrl: string | undefined;
  /** FORMGATE_API_KEY: the key `formgate mcp` serves with (unset: --key-file must give one). */
  readonly mcpApiKey: string | undefined;
}

export interface OidcConfig {
  /** The provider's issuer identifier (its discovery document is read from it). */
  readonly issuer: string;
  readonly clientId: string;
  /** Unset for a public client (PKCE alone). */
  readonly clientSecret: string | undefined;
  /** The sign-in button's words. */
  readonly displayName: string;
  readonly scopes: string;
}

export interface FilesConfig {
  readonly storage: 'local' | 's3';
  /** FILES_DIR: the local storage's folder. */
  readonly dir: string;
  /** FILES_MAX_BYTES: no form may take a larger file. */
  readonly maxBytes: number;
  /** FILES_QUOTA_BYTES: the most all of one account's files may hold. */
  readonly quotaBytes: number;
  /** Set when S3_BUCKET is (always with `storage` s3): also the target of `formgate files copy --to s3`. */
  readonly s3: S3Config | undefined;
}

export interface S3Config {
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
}

export class ConfigError extends Error {}

/** Parses configuration once; every other module receives the frozen result, never process.env. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable (`FOO=`) means "unset", as in most twelve-factor tools.
  const cleaned = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  const result = envSchema.safeParse(resolveSecretFiles(cleaned));
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.data;
  if ((e.OIDC_ISSUER === undefined) !== (e.OIDC_CLIENT_ID === undefined)) {
    throw new ConfigError('Invalid configuration: OIDC_ISSUER and OIDC_CLIENT_ID are set together or not at all');
  }
  if (!e.PASSWORD_LOGIN && e.OIDC_ISSUER === undefined) {
    throw new ConfigError('Invalid configuration: PASSWORD_LOGIN=false needs single sign-on (OIDC_ISSUER and OIDC_CLIENT_ID), or nobody could log in to the dashboard');
  }
  // Never a default password: an admin address alone would make an account nobody can log in to.
  if ((e.ADMIN_EMAIL === undefined) !== (e.ADMIN_PASSWORD === undefined)) {
    const missing = e.ADMIN_EMAIL === undefined ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD (or ADMIN_PASSWORD_FILE)';
    throw new ConfigError(`Invalid configuration: ${missing}: required when the other of ADMIN_EMAIL and ADMIN_PASSWORD is set`);
  }
  if (e.FILES_STORAGE === 's3' && e.S3_BUCKET === undefined) {
    throw new ConfigError('Invalid configuration: S3_BUCKET: required when FILES_STORAGE=s3');
  }
  if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new ConfigError('Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all');
  }
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    defaultPlan: e.DEFAULT_PLAN,
    turnstileSecretKey: e.TURNSTILE_SECRET_KEY,
    turnstileVerifyUrl: e.TURNSTILE_VERIFY_URL,
    hcaptchaSecretKey: e.HCAPTCHA_SECRET_KEY,
    hcaptchaVerifyUrl: e.HCAPTCHA_VERIFY_URL,
    recaptchaSecretKey: e.RECAPTCHA_SECRET_KEY,
    recaptchaVerifyUrl: e.RECAPTCHA_VERIFY_URL,
    hookTimeoutMs: e.HOOK_TIMEOUT_MS,
    hookAllowPrivateTargets: e.HOOK_ALLOW_PRIVATE_TARGETS,
    submitMaxBodyBytes: e.SUBMIT_MAX_BODY_BYTES,
    submitRateLimitPerMinute: e.SUBMIT_RATE_LIMIT_PER_MINUTE,
    countryHeader: e.COUNTRY_HEADER,
    trustProxy: e.TRUST_PROXY,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    dashboardSignup: e.DASHBOARD_SIGNUP,
    passwordLogin: e.PASSWORD_LOGIN,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    oidc:
      e.OIDC_ISSUER && e.OIDC_CLIENT_ID
        ? Object.freeze({
            issuer: e.OIDC_ISSUER,
            clientId: e.OIDC_CLIENT_ID,
            clientSecret: e.OIDC_CLIENT_SECRET,
            displayName: e.OIDC_DISPLAY_NAME,
            scopes: e.OIDC_SCOPES,
          })
        : undefined,
    metricsPort: e.METRICS_PORT,
    retentionPurgeIntervalMs: e.RETENTION_PURGE_INTERVAL_MS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `Formgate <formgate@${new URL(baseUrl).hostname}>`,
    mailRetryBaseMs: e.MAIL_RETRY_BASE_MS,
    outboxLeaseMs: e.OUTBOX_LEASE_MS,
    telegramApiUrl: e.TELEGRAM_API_URL.replace(/\/+$/, ''),
    googleSheetsApiUrl: e.GOOGLE_SHEETS_API_URL.replace(/\/+$/, ''),
    googleTokenUrl: e.GOOGLE_TOKEN_URL,
    airtableApiUrl: e.AIRTABLE_API_URL.replace(/\/+$/, ''),
    notionApiUrl: e.NOTION_API_URL.replace(/\/+$/, ''),
    mailchimpApiUrl: e.MAILCHIMP_API_URL?.replace(/\/+$/, ''),
    mcpApiKey: e.FORMGATE_API_KEY,
    files: Object.freeze({
      storage: e.FILES_STORAGE,
      dir: e.FILES_DIR,
      maxBytes: e.FILES_MAX_BYTES,
      quotaBytes: e.FILES_QUOTA_BYTES,
      s3:
        e.S3_BUCKET !== undefined
          ? Object.freeze({
              endpoint: e.S3_ENDPOINT,
              region: e.S3_REGION,
              bucket: e.S3_BUCKET!,
              accessKeyId: e.S3_ACCESS_KEY_ID,
              secretAccessKey: e.S3_SECRET_ACCESS_KEY,
              forcePathStyle: e.S3_FORCE_PATH_STYLE,
            })
          : undefined,
    }),
    clamdUrl: e.CLAMD_URL,
    bootstrapAdmin: e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
  });
}

/** Reads `.env` from the working directory (real environment variables win) and parses it. */
export function loadConfig(): Config {
  loadDotenv({ quiet: true });
  return parseConfig(process.env);
}

/**
 * The environment after `.env`, for variables whose names the operator chooses rather than
 * Formgate: a configuration file's `${VARIABLE}` secret references (docs/config-as-code.md).
 */
export function environmentVariables(): Readonly<Record<string, string | undefined>> {
  loadDotenv({ quiet: true });
  return { ...process.env };
}
