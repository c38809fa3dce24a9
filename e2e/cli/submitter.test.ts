import { describe, expect, it } from 'vitest';
import { nowIso } from '../../src/platform/lib/time.js';
import { addressHash } from '../../src/features/notifications/confirmation.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../../test/helpers/database.js';
import { createOwner, useMigratedDatabase } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let services: Services;

const formgate = (args: string[]) => runCli([...args, '--json'], { DATABASE_URL: database.url });
const ok = <T = any>(args: string[]) => runCliJson<T>(args, { DATABASE_URL: database.url });

useMigratedDatabase((opened) => ({ database, services } = opened));

describe('formgate CLI: the submitter side', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('forms create/update set the confirmation, templates, thank-you page and language; the settings show them', async () => {
    const { account } = await createOwner(services);
    const created = await ok([
      'forms', 'create', account.id, '--name', 'Contact', '--auto-reply', '--auto-reply-field', 'reply_to',
      '--auto-reply-subject', 'Thanks {{name}}', '--auto-reply-body', 'We got it.\nBye', '--notify-subject', 'New: {{form.name}}',
      '--thanks-title', 'Merci', '--thanks-message', 'Line 1\nLine 2', '--language', 'fr', '--auto-reply-daily-limit', '10',
    ]);
    expect(created.form.settings).toMatchObject({
      autoReply: { enabled: true, field: 'reply_to', subject: 'Thanks {{name}}', body: 'We got it.\nBye' },
      notifySubject: 'New: {{form.name}}',
      thanksTitle: 'Merci',
      thanksMessage: 'Line 1\nLine 2',
      language: 'fr',
      autoReplyDailyLimit: 10,
    });
    const updated = await ok(['forms', 'update', created.form.id, '--no-auto-reply', '--notify-subject', '', '--thanks-title', '', '--language', 'auto']);
    expect(updated.form.settings).toMatchObject({
      autoReply: { enabled: false, field: 'reply_to', subject: 'Thanks {{name}}' },
      notifySubject: 'New submission: {{form.name}}',
      thanksTitle: null,
      thanksMessage: 'Line 1\nLine 2',
      language: 'auto',
    });
    const refused = await formgate(['forms', 'update', created.form.id, '--auto-reply-subject', '{{#x}}loop{{/x}}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('autoReply.subject:');
    expect((await formgate(['forms', 'update', created.form.id, '--language', 'xx'])).code).not.toBe(0);
  });

  it('suppressions remove <email> answers whether the address was on the list', async () => {
    await services.handle.db
      .insertInto('email_suppressions')
      .values({ address_hash: addressHash('Gone@Example.org'), reason: 'unsubscribe', created_at: nowIso() })
      .execute();
    expect(await ok(['suppressions', 'remove', 'gone@example.org'])).toEqual({ removed: true });
    expect(await ok(['suppressions', 'remove', 'gone@example.org'])).toEqual({ removed: false });
  });
});
