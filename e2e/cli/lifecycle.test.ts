import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { isoMinus, nowIso } from '../../src/platform/lib/time.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../../test/helpers/database.js';
import { createOwner, insertSubmissions, useMigratedDatabase } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let services: Services;

const formgate = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--json'], { DATABASE_URL: database.url, ...env });
const ok = <T = any>(args: string[], env: Record<string, string> = {}) => runCliJson<T>(args, { DATABASE_URL: database.url, ...env });

useMigratedDatabase((opened) => ({ database, handle, services } = opened));

describe('formgate CLI: spam rules and data lifecycle', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('forms create/update take every new option; a repeated option replaces its list and "" clears it', async () => {
    const { account } = await createOwner(services);
    const created = await ok([
      'forms', 'create', account.id, '--name', 'Rules',
      '--blocked-term', 'Casino', '--blocked-term', 'pills',
      '--blocked-email', 'Bot@Example.net', '--blocked-email', '@spam.example',
      '--allowed-origin', 'www.example.com', '--allowed-origin', 'https://shop.example.com/contact',
      '--max-links', '3', '--retention-days', '90', '--store-ip', 'none', '--turnstile-site-key', '0x4AAAAAAAtest',
    ]);
    expect(created.form.settings).toMatchObject({
      blockedTerms: ['casino', 'pills'],
      blockedEmails: ['bot@example.net', '@spam.example'],
      allowedOrigins: ['www.example.com', 'shop.example.com'],
      maxLinks: 3,
      retentionDays: 90,
      storeIp: 'none',
      turnstileSiteKey: '0x4AAAAAAAtest',
      turnstileSecret: null,
      accessKey: null,
    });
    const id = created.form.id as string;
    const updated = await ok(['forms', 'update', id, '--blocked-term', 'viagra', '--blocked-email', '', '--max-links', '', '--retention-days', '', '--store-ip', 'full']);
    expect(updated.form.settings).toMatchObject({
      blockedTerms: ['viagra'],
      blockedEmails: [],
      allowedOrigins: ['www.example.com', 'shop.example.com'],
      maxLinks: null,
      retentionDays: null,
      storeIp: 'full',
    });
  });

  it('refuses bad values with the setting named, and requiring the bot check with no secret anywhere', async () => {
    const { account, form } = await createOwner(services);
    const cases = [
      [['--max-links', 'many'], 'maxLinks'],
      [['--retention-days', '0'], 'retentionDays'],
      [['--retention-days', '3651'], 'retentionDays'],
      [['--store-ip', 'partial'], 'storeIp'],
      [['--blocked-email', 'not-an-address'], 'blockedEmails'],
      [['--turnstile-site-key', 'has spaces'], 'turnstileSiteKey'],
      [['--require-bot-check'], 'turnstileSecret'],
    ] as const;
    const results = await Promise.all(cases.map(([args]) => formgate(['forms', 'update', form.id, ...args])));
    results.forEach((result, i) => {
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`${cases[i]![1]}:`);
    });
    const refused = await formgate(['forms', 'create', account.id, '--name', 'Trap', '--require-bot-check']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/turnstileSecret: required/);
    // With TURNSTILE_SECRET_KEY, or a secret of the form's own, it is accepted.
    expect((await ok(['forms', 'update', form.id, '--require-bot-check'], { TURNSTILE_SECRET_KEY: 'global' })).form.settings.requireBotCheck).toBe(true);
    expect((await ok(['forms', 'create', account.id, '--name', 'Own', '--require-bot-check', '--turnstile-secret', 's'])).form.settings.turnstileSecret).toBe('set');
  });

  it('submissions mark --spam / --not-spam prints the Submission', async () => {
    const { form } = await createOwner(services);
    const [id] = await insertSubmissions(services, form.id, [{ createdAt: nowIso(), payload: { a: 1 }, isSpam: true }]);
    const notSpam = await ok(['submissions', 'mark', id!, '--not-spam']);
    expect(notSpam).toEqual({
      submission: {
        id,
        createdAt: expect.any(String),
        status: 'delivered',
        isSpam: 0,
        spamReason: null,
        country: 'XX',
        payload: { a: 1 },
        triage: { read: false, state: 'open', assignee: null, tags: [] },
      },
    });
    expect((await ok(['submissions', 'mark', id!, '--spam'])).submission).toMatchObject({ isSpam: 1, spamReason: 'marked' });
    const neither = await formgate(['submissions', 'mark', id!]);
    expect(neither.code).not.toBe(0);
    expect(neither.stderr).toMatch(/--spam or --not-spam/);
    const unknown = await formgate(['submissions', 'mark', 'sub_unknown', '--spam']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/not found/i);
  });

  it('submissions erase and purge print {deleted: n}; forms delete prints {deleted: true}', async () => {
    const { account, form } = await createOwner(services, { form: { retentionDays: 10 } });
    const now = nowIso();
    await insertSubmissions(services, form.id, [
      { createdAt: now, payload: { email: 'Erase.Me@example.com' } },
      { createdAt: now, payload: { email: 'keep@example.com' } },
      { createdAt: isoMinus(now, 11 * 86_400_000), payload: { email: 'old@example.com' } },
      { createdAt: isoMinus(now, 12 * 86_400_000), payload: { email: 'older@example.com' } },
    ]);
    expect(await ok(['submissions', 'erase', account.email, '--email', 'erase.me@EXAMPLE.com'])).toEqual({ deleted: 1 });
    expect(await ok(['purge'])).toEqual({ deleted: 2 });
    expect(await ok(['purge'])).toEqual({ deleted: 0 });
    expect(await ok(['forms', 'delete', form.id])).toEqual({ deleted: true });
    expect(await services.forms.findForm(form.id)).toBeUndefined();
    const again = await formgate(['forms', 'delete', form.id]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/not found/i);
  });
});
