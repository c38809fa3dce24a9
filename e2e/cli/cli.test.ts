import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;

const formgate = (args: string[], env: Record<string, string> = {}) => runCli(args, { DATABASE_URL: database.url, ...env });
const formgateJson = <T = any>(args: string[]) => runCliJson<T>(args, { DATABASE_URL: database.url });

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => database.drop());

describe('formgate CLI', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let accountId: string;
  let apiKey: string;
  let keyId: string;
  let formId: string;

  it('migrate prints {migrated: true}, twice', async () => {
    expect(await formgateJson(['migrate'])).toEqual({ migrated: true });
    expect(await formgateJson(['migrate'])).toEqual({ migrated: true });
  });

  it('accounts create prints exactly the documented document', async () => {
    const out = await formgateJson(['accounts', 'create', '--email', 'a@example.com', '--plan', 'pro', '--name', 'Ada']);
    expect(out).toEqual({
      account: { id: expect.stringMatching(/^acc_/), email: 'a@example.com', displayName: 'Ada', planId: 'pro' },
    });
    accountId = out.account.id;
  });

  it('accounts set-plan takes an ID or an email', async () => {
    expect((await formgateJson(['accounts', 'set-plan', 'a@example.com', 'business'])).account.planId).toBe('business');
    expect((await formgateJson(['accounts', 'set-plan', accountId, 'pro'])).account).toEqual({
      id: accountId,
      email: 'a@example.com',
      displayName: 'Ada',
      planId: 'pro',
    });
  });

  it('accounts set-admin marks an admin and --off takes it back', async () => {
    expect((await formgateJson(['accounts', 'set-admin', 'a@example.com'])).account).toEqual({
      id: accountId,
      email: 'a@example.com',
      displayName: 'Ada',
      planId: 'pro',
      isAdmin: true,
    });
    expect((await formgateJson(['accounts', 'set-admin', accountId, '--off'])).account.isAdmin).toBe(false);
  });

  it('keys create and forms create print the documented documents', async () => {
    const key = await formgateJson(['keys', 'create', 'a@example.com', '--name', 'ci']);
    expect(key).toEqual({
      key: { id: expect.stringMatching(/^key_/), name: 'ci', createdAt: expect.stringMatching(/\.\d{3}Z$/), scope: 'read' },
      apiKey: expect.stringMatching(/^fgk_[0-9A-Za-z]{32,}$/),
    });
    apiKey = key.apiKey;
    keyId = key.key.id;
    const form = await formgateJson([
      'forms', 'create', accountId, '--name', 'Contact', '--access-key', 'sesame', '--require-bot-check', '--turnstile-secret', 'ts-secret',
      '--success-url', 'https://example.com/thanks', '--allow-redirect-host', 'a.example.com',
      '--allow-redirect-host', 'b.example.com', '--inactive',
    ]);
    expect(form).toEqual({
      form: {
        id: expect.stringMatching(/^frm_/),
        name: 'Contact',
        isActive: 0,
        createdAt: expect.any(String),
        sealed: null,
        settings: {
          accessKey: 'set',
          requireBotCheck: true,
          turnstileSecret: 'set',
          turnstileSiteKey: null,
          successUrl: 'https://example.com/thanks',
          errorUrl: null,
          allowedRedirectHosts: ['a.example.com', 'b.example.com'],
          blockedTerms: [],
          blockedEmails: [],
          allowedOrigins: [],
          maxLinks: null,
          retentionDays: null,
          storeIp: 'full',
          botCheck: 'turnstile',
          hcaptchaSecret: null,
          hcaptchaSiteKey: null,
          recaptchaSecret: null,
          recaptchaSiteKey: null,
          recaptchaMinScore: 0.5,
          altchaComplexity: 'medium',
          minFillSeconds: 0,
          spamFilter: 'off',
          notifySubject: 'New submission: {{form.name}}',
          autoReply: { enabled: false, field: 'email', subject: null, body: null },
          autoReplyDailyLimit: 200,
          thanksTitle: null,
          thanksMessage: null,
          language: 'auto',
          requiredFields: [],
          notify: [],
          notifyMode: 'each',
          files: 'off',
          maxFiles: 5,
          maxFileBytes: 10485760,
          maxTotalBytes: 26214400,
          fileTypes: [],
          sealed: null,
        },
      },
    });
    expect(JSON.stringify(form)).not.toContain('sesame');
    expect(JSON.stringify(form)).not.toContain('ts-secret');
    formId = form.form.id;
    const updated = await formgateJson(['forms', 'update', formId, '--active', '--name', 'Contact us']);
    expect(updated.form).toMatchObject({ id: formId, name: 'Contact us', isActive: 1 });
  });

  it('the created key works against the API, and keys revoke stops it', async () => {
    const app: TestApp = await startTestApp({ database });
    try {
      const me = await fetch(`${app.url}/v1/api/me`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toEqual({
        user: { id: accountId, email: 'a@example.com', displayName: 'Ada', planId: 'pro' },
      });
      const stored = await app.services.forms.getForm(formId);
      expect(stored).toMatchObject({
        accessKey: 'sesame',
        requireBotCheck: true,
        successUrl: 'https://example.com/thanks',
        allowedRedirectHosts: ['a.example.com', 'b.example.com'],
      });
      expect(await formgateJson(['keys', 'revoke', keyId])).toEqual({ revoked: true });
      const after = await fetch(`${app.url}/v1/api/me`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(after.status).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('reports errors on stderr with a non-zero exit', async () => {
    const badPlan = await formgate(['accounts', 'set-plan', 'a@example.com', 'gold', '--json']);
    expect(badPlan.code).not.toBe(0);
    expect(badPlan.stdout).toBe('');
    expect(badPlan.stderr).toMatch(/plan/);
    const unknown = await formgate(['keys', 'create', 'nobody@example.com', '--json']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/not found/i);
    const badConfig = await formgate(['migrate', '--json'], { PORT: 'abc' });
    expect(badConfig.code).not.toBe(0);
    expect(badConfig.stderr).toMatch(/PORT/);
  });
});
