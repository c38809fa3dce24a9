import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, SECRET_VARIABLES } from '../src/platform/config.js';

const dir = mkdtempSync(join(tmpdir(), 'formgate-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function secretFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('<NAME>_FILE secrets', () => {
  it('reads each secret from its file, one trailing newline trimmed', () => {
    const config = parseConfig({
      DATABASE_URL_FILE: secretFile('db', 'postgres://u:p@db/formgate\n'),
      REDIS_URL_FILE: secretFile('redis', 'redis://:pw@cache:6379\r\n'),
      SMTP_URL_FILE: secretFile('smtp', 'smtps://u:p@mail.example.com:465'),
      TURNSTILE_SECRET_KEY_FILE: secretFile('turnstile', 'ts-secret\n\n'),
      HCAPTCHA_SECRET_KEY_FILE: secretFile('hcaptcha', 'hc-secret\n'),
      RECAPTCHA_SECRET_KEY_FILE: secretFile('recaptcha', 'rc-secret\n'),
      FORMGATE_API_KEY_FILE: secretFile('mcp-key', 'fgk_abc\n'),
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD_FILE: secretFile('admin', 'correct horse battery\n'),
    });
    expect(config.databaseUrl).toBe('postgres://u:p@db/formgate');
    expect(config.redisUrl).toBe('redis://:pw@cache:6379');
    expect(config.smtpUrl).toBe('smtps://u:p@mail.example.com:465');
    // Only one newline goes: a value that really ends in a newline keeps the rest.
    expect(config.turnstileSecretKey).toBe('ts-secret\n');
    expect(config.hcaptchaSecretKey).toBe('hc-secret');
    expect(config.recaptchaSecretKey).toBe('rc-secret');
    expect(config.mcpApiKey).toBe('fgk_abc');
    expect(config.bootstrapAdmin).toEqual({ email: 'owner@example.com', password: 'correct horse battery' });
  });

  it('covers every secret-bearing variable, and the MCP key', () => {
    expect([...SECRET_VARIABLES].sort()).toEqual(
      ['ADMIN_PASSWORD', 'DATABASE_URL', 'FORMGATE_API_KEY', 'HCAPTCHA_SECRET_KEY', 'OIDC_CLIENT_SECRET', 'RECAPTCHA_SECRET_KEY', 'REDIS_URL', 'S3_SECRET_ACCESS_KEY', 'SMTP_URL', 'TURNSTILE_SECRET_KEY'].sort(),
    );
  });

  it.each([...SECRET_VARIABLES])('refuses %s together with %s_FILE, naming both', (name) => {
    const env = { [name]: 'x', [`${name}_FILE`]: secretFile(`both-${name}`, 'y') };
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(`${name} and ${name}_FILE are both set`);
  });

  it('refuses a missing file, naming the variable and the path, never a value', () => {
    const missing = join(dir, 'no-such-file');
    expect(() => parseConfig({ SMTP_URL_FILE: missing })).toThrow(ConfigError);
    expect(() => parseConfig({ SMTP_URL_FILE: missing })).toThrow(`SMTP_URL_FILE: cannot read ${missing} (ENOENT)`);
  });

  it('refuses a file it may not read, and a directory', () => {
    const locked = secretFile('locked', 'secret');
    chmodSync(locked, 0o000);
    // root reads any file: the check is only meaningful for an ordinary user.
    if (process.getuid?.() !== 0) expect(() => parseConfig({ DATABASE_URL_FILE: locked })).toThrow(/DATABASE_URL_FILE: cannot read .*EACCES/);
    expect(() => parseConfig({ DATABASE_URL_FILE: dir })).toThrow(/DATABASE_URL_FILE: cannot read .*EISDIR/);
  });

  it('validates what the file holds like the variable itself', () => {
    expect(() => parseConfig({ DATABASE_URL_FILE: secretFile('bad-db', 'mysql://x\n') })).toThrow(/DATABASE_URL: must be sqlite/);
  });
});

describe('ADMIN_EMAIL / ADMIN_PASSWORD', () => {
  it('is off by default', () => {
    expect(parseConfig({}).bootstrapAdmin).toBeUndefined();
  });

  it('never makes an account without a password, nor a password without an address', () => {
    expect(() => parseConfig({ ADMIN_EMAIL: 'owner@example.com' })).toThrow(/ADMIN_PASSWORD \(or ADMIN_PASSWORD_FILE\): required/);
    expect(() => parseConfig({ ADMIN_PASSWORD: 'long enough secret' })).toThrow(/ADMIN_EMAIL: required/);
  });

  it('checks the address and the password length without printing the password', () => {
    expect(() => parseConfig({ ADMIN_EMAIL: 'not-an-address', ADMIN_PASSWORD: 'long enough secret' })).toThrow(/ADMIN_EMAIL/);
    let message = '';
    try {
      parseConfig({ ADMIN_EMAIL: 'owner@example.com', ADMIN_PASSWORD: 'short' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/ADMIN_PASSWORD/);
    expect(message).not.toContain('short');
  });
});
