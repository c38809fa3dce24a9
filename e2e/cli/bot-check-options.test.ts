import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../../test/helpers/database.js';
import { createOwner, useMigratedDatabase } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let services: Services;

const formgate = (args: string[], env: Record<string, string> = {}) => runCli([...args, '--json'], { DATABASE_URL: database.url, ...env });
const ok = (args: string[], env: Record<string, string> = {}) => runCliJson(args, { DATABASE_URL: database.url, ...env });

useMigratedDatabase((opened) => ({ database, services } = opened));

describe('formgate forms create/update: bot checks and the learning filter', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('take every option, show secrets only as "set", and refuse bad values naming the setting', async () => {
    const { account } = await createOwner(services);
    const created = await ok([
      'forms', 'create', account.id, '--name', 'Checked', '--bot-check', 'recaptcha', '--recaptcha-secret', 'r-very-secret',
      '--recaptcha-site-key', '6LcTest', '--recaptcha-min-score', '0.7', '--hcaptcha-secret', 'h-very-secret',
      '--altcha-complexity', 'high', '--min-fill-seconds', '5', '--spam-filter', 'learn',
    ]);
    const settings = created.form.settings;
    expect(settings).toMatchObject({
      botCheck: 'recaptcha', recaptchaSecret: 'set', recaptchaSiteKey: '6LcTest', recaptchaMinScore: 0.7, hcaptchaSecret: 'set',
      altchaComplexity: 'high', minFillSeconds: 5, spamFilter: 'learn', requireBotCheck: false,
    });
    expect(JSON.stringify(created)).not.toContain('very-secret');
    const id = created.form.id as string;

    const altcha = (await ok(['forms', 'update', id, '--bot-check', 'altcha', '--spam-filter', 'off'])).form.settings;
    expect(altcha).toMatchObject({ botCheck: 'altcha', spamFilter: 'off' });
    // --require-bot-check keeps meaning Turnstile.
    const turnstile = (await ok(['forms', 'update', id, '--require-bot-check'], { TURNSTILE_SECRET_KEY: 'global' })).form.settings;
    expect(turnstile).toMatchObject({ botCheck: 'turnstile', requireBotCheck: true });

    const badScore = await formgate(['forms', 'update', id, '--recaptcha-min-score', 'high']);
    expect(badScore.code).not.toBe(0);
    expect(badScore.stderr).toContain('recaptchaMinScore');
    const badVendor = await formgate(['forms', 'update', id, '--bot-check', 'captcha9000']);
    expect(badVendor.code).not.toBe(0);
    const noSecret = await formgate(['forms', 'update', id, '--bot-check', 'hcaptcha', '--hcaptcha-secret', '']);
    expect(noSecret.code).not.toBe(0);
    expect(noSecret.stderr).toContain('hcaptchaSecret');
  });
});
