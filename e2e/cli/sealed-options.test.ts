import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../../test/helpers/database.js';
import { createOwner, useMigratedDatabase } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let services: Services;

const formgate = (args: string[]) => runCli([...args, '--json'], { DATABASE_URL: database.url });
const ok = (args: string[]) => runCliJson(args, { DATABASE_URL: database.url });
/** A recipient from Debian's age-keygen: the identity it prints, turned into its public key by -y. */
const newRecipient = () =>
  execFileSync('/usr/bin/age-keygen', ['-y'], { input: execFileSync('/usr/bin/age-keygen', { stdio: ['ignore', 'pipe', 'ignore'] }) }).toString('utf8').trim();

useMigratedDatabase((opened) => ({ database, services } = opened));

describe('formgate forms update: sealing', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('--sealed-recipient seals to the recipients given (label after a space), --no-sealed unseals, bad ones are refused', async () => {
    const { form } = await createOwner(services);
    const [first, second] = [newRecipient(), newRecipient()];
    const sealed = await ok(['forms', 'update', form.id, '--sealed-recipient', first, '--sealed-recipient', `${second} offline backup`]);
    const expected = { recipients: [{ recipient: first, label: null }, { recipient: second, label: 'offline backup' }] };
    expect(sealed.form.sealed).toEqual(expected);
    expect(sealed.form.settings.sealed).toEqual(expected);
    expect((await services.forms.getForm(form.id)).sealed).toEqual(expected);

    const bad = await formgate(['forms', 'update', form.id, '--sealed-recipient', `${first.slice(0, -1)}${first.endsWith('q') ? 'p' : 'q'}`]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('sealed');
    const withFiles = await formgate(['forms', 'update', form.id, '--files', 'store']);
    expect(withFiles.code).not.toBe(0);
    expect(withFiles.stderr).toContain('files');

    const unsealed = await ok(['forms', 'update', form.id, '--no-sealed']);
    expect(unsealed.form.sealed).toBeNull();
    // Any other update leaves the setting alone.
    const renamed = await ok(['forms', 'update', form.id, '--name', 'Renamed']);
    expect(renamed.form.sealed).toBeNull();
  });
});
