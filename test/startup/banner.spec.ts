import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { startupBanner } from '../../src/platform/startup/banner.js';

const facts = { listenUrl: 'http://127.0.0.1:3000', metricsUrl: undefined, redisReachable: undefined, emailOn: false };
const signInLine = (env: Record<string, string>) => startupBanner(parseConfig(env), facts).find((line) => line.startsWith('Sign-in: '));

describe('start-up banner', () => {
  it('says passwords are on, single sign-on off and sign-up open by default', () => {
    expect(signInLine({})).toBe('Sign-in: password log-in on, single sign-on off (OIDC_ISSUER not set); sign-up open (DASHBOARD_SIGNUP)');
  });

  it('names the provider issuer, password log-in off and the sign-up mode', () => {
    const line = signInLine({
      OIDC_ISSUER: 'https://id.example.com/realms/staff',
      OIDC_CLIENT_ID: 'formgate',
      OIDC_CLIENT_SECRET: 'never-printed',
      PASSWORD_LOGIN: 'false',
      DASHBOARD_SIGNUP: 'invite',
    });
    expect(line).toBe('Sign-in: password log-in off (PASSWORD_LOGIN=false), single sign-on on (https://id.example.com/realms/staff); sign-up invite (DASHBOARD_SIGNUP)');
    expect(line).not.toContain('never-printed');
  });
});
