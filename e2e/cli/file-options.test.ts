import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../../test/helpers/database.js';
import { createOwner, useMigratedDatabase } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let services: Services;

const formgate = (args: string[]) => runCli([...args, '--json'], { DATABASE_URL: database.url });
const ok = (args: string[]) => runCliJson(args, { DATABASE_URL: database.url });

useMigratedDatabase((opened) => ({ database, services } = opened));

describe('formgate forms create/update: file uploads', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('take the file options, print them in settings, and refuse bad values naming the setting', async () => {
    const { account } = await createOwner(services);
    const created = await ok([
      'forms', 'create', account.id, '--name', 'Uploads', '--files', 'store', '--max-files', '3', '--max-file-bytes', '1048576',
      '--max-total-bytes', '2097152', '--file-type', 'images', '--file-type', 'application/pdf',
    ]);
    expect(created.form.settings).toMatchObject({ files: 'store', maxFiles: 3, maxFileBytes: 1048576, maxTotalBytes: 2097152, fileTypes: ['images', 'application/pdf'] });
    const id = created.form.id as string;
    const cleared = (await ok(['forms', 'update', id, '--file-type', '', '--files', 'off'])).form.settings;
    expect(cleared).toMatchObject({ files: 'off', fileTypes: [] });

    const tooMany = await formgate(['forms', 'update', id, '--max-files', '21']);
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toContain('maxFiles');
    const badType = await formgate(['forms', 'update', id, '--file-type', 'text/html']);
    expect(badType.code).not.toBe(0);
    expect(badType.stderr).toContain('fileTypes');
  });
});
