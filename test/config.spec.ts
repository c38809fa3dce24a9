import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/platform/config.js';

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:3000',
      databaseUrl: 'sqlite:./data/formgate.db',
      redisUrl: undefined,
      defaultPlan: 'free',
      turnstileVerifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      hookTimeoutMs: 10_000,
      hookAllowPrivateTargets: false,
      submitMaxBodyBytes: 1_048_576,
      submitRateLimitPerMinute: 60,
      countryHeader: undefined,
      trustProxy: false,
      logLevel: 'info',
      dashboardSignup: 'open',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('derives BASE_URL from PORT and reads every variable', () => {
    const config = parseConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://u@db/formgate',
      REDIS_URL: 'redis://127.0.0.1:6379',
      DEFAULT_PLAN: 'pro',
      HOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SUBMIT_RATE_LIMIT_PER_MINUTE: '0',
      COUNTRY_HEADER: 'CF-IPCountry',
      TRUST_PROXY: '1',
      DASHBOARD_SIGNUP: 'closed',
    });
    expect(config.baseUrl).toBe('http://localhost:8080');
    expect(config.databaseUrl).toBe('postgres://u@db/formgate');
    expect(config.defaultPlan).toBe('pro');
    expect(config.hookAllowPrivateTargets).toBe(true);
    expect(config.submitRateLimitPerMinute).toBe(0);
    expect(config.countryHeader).toBe('cf-ipcountry');
    expect(config.trustProxy).toBe(1);
    expect(config.dashboardSignup).toBe('closed');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DEFAULT_PLAN', 'gold'],
    ['HOOK_TIMEOUT_MS', '-1'],
    ['HOOK_ALLOW_PRIVATE_TARGETS', 'maybe'],
    ['SUBMIT_MAX_BODY_BYTES', 'lots'],
    ['LOG_LEVEL', 'loud'],
    ['BASE_URL', 'not a url'],
    ['REDIS_URL', 'http://x'],
    ['DASHBOARD_SIGNUP', 'sometimes'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'not a url'],
    ['MAIL_FROM', 'a\r\nBcc: x@example.com'],
    ['MAIL_RETRY_BASE_MS', '0'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('runs the retention purge hourly by default, and at most that rarely', () => {
    expect(parseConfig({}).retentionPurgeIntervalMs).toBe(3_600_000);
    expect(parseConfig({ RETENTION_PURGE_INTERVAL_MS: '60000' }).retentionPurgeIntervalMs).toBe(60_000);
    for (const value of ['3600001', '999', 'soon']) {
      expect(() => parseConfig({ RETENTION_PURGE_INTERVAL_MS: value })).toThrow(/RETENTION_PURGE_INTERVAL_MS/);
    }
  });

  it('email: off without SMTP_URL, MAIL_FROM defaults to formgate@ the BASE_URL host, retries start at a minute', () => {
    const off = parseConfig({});
    expect(off.smtpUrl).toBeUndefined();
    expect(off.mailFrom).toBe('Formgate <formgate@localhost>');
    expect(off.mailRetryBaseMs).toBe(60_000);
    const on = parseConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465', BASE_URL: 'https://forms.example.com/', MAIL_RETRY_BASE_MS: '500' });
    expect(on.smtpUrl).toBe('smtps://u:p@mail.example.com:465');
    expect(on.mailFrom).toBe('Formgate <formgate@forms.example.com>');
    expect(on.mailRetryBaseMs).toBe(500);
    expect(parseConfig({ MAIL_FROM: 'Forms <forms@example.com>' }).mailFrom).toBe('Forms <forms@example.com>');
  });

  it('reads single sign-on settings, with the documented defaults, and refuses what would lock everyone out', () => {
    expect(parseConfig({})).toMatchObject({ oidc: undefined, passwordLogin: true });
    const sso = { OIDC_ISSUER: 'https://id.example.com/realms/staff', OIDC_CLIENT_ID: 'formgate', OIDC_CLIENT_SECRET: 's3cret' };
    expect(parseConfig({ ...sso, PASSWORD_LOGIN: 'false' })).toMatchObject({
      passwordLogin: false,
      oidc: { issuer: 'https://id.example.com/realms/staff', clientId: 'formgate', clientSecret: 's3cret', displayName: 'Single sign-on', scopes: 'openid email profile' },
    });
    expect(() => parseConfig({ PASSWORD_LOGIN: 'false' })).toThrow(/PASSWORD_LOGIN=false needs single sign-on/);
    expect(() => parseConfig({ OIDC_ISSUER: sso.OIDC_ISSUER })).toThrow(/OIDC_ISSUER and OIDC_CLIENT_ID are set together/);
    expect(() => parseConfig({ OIDC_CLIENT_ID: 'formgate' })).toThrow(/OIDC_ISSUER and OIDC_CLIENT_ID are set together/);
    expect(() => parseConfig({ ...sso, OIDC_SCOPES: 'email profile' })).toThrow(/OIDC_SCOPES: must include openid/);
    expect(() => parseConfig({ ...sso, OIDC_ISSUER: 'ftp://id.example.com' })).toThrow(/OIDC_ISSUER/);
  });
});
