import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import type { Services } from '../../src/services.js';
import type { TestDatabase } from '../../test/helpers/database.js';
import { createOwner, useMigratedDatabase } from '../../test/helpers/factories.js';
import { startS3Server, type TestS3Server } from '../../test/helpers/s3-server.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let services: Services;
let s3: TestS3Server;
let dir: string;

useMigratedDatabase((opened) => ({ database, handle, services } = opened));
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-cli-files-'));
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('formgate files copy --to s3', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('copies the folder\'s files and prints {copied}; without an S3 store, or with a file missing, it fails naming why', async () => {
    const { account, form } = await createOwner(services);
    const key = `${account.id}/fil_copied0000000001`;
    mkdirSync(join(dir, account.id), { recursive: true });
    writeFileSync(join(dir, key), 'hello');
    const now = new Date().toISOString();
    await handle.db
      .insertInto('files')
      .values({ id: 'fil_copied0000000001', account_id: account.id, form_id: form.id, submission_id: null, field: 'f', name: 'a.txt', size: 5, type: 'text/plain', storage_key: key, created_at: now })
      .execute();
    const env = { DATABASE_URL: database.url, FILES_DIR: dir };
    const { FILES_STORAGE: _local, ...s3Only } = s3.env;

    const copied = await runCli(['files', 'copy', '--to', 's3', '--json'], { ...env, ...s3Only });
    expect(copied.code).toBe(0);
    // On Node 20 the AWS SDK warns once that its releases from 2027 need Node 22: nothing else.
    expect(copied.stderr.replace(/^\(node:\d+\) Warning: NodeVersionSupportWarning[\s\S]*$/, '')).toBe('');
    expect(JSON.parse(copied.stdout)).toEqual({ copied: { files: 1 } });

    const unconfigured = await runCli(['files', 'copy', '--to', 's3'], env);
    expect(unconfigured.code).not.toBe(0);
    expect(unconfigured.stderr).toContain('S3_BUCKET');

    rmSync(join(dir, key));
    const missing = await runCli(['files', 'copy', '--to', 's3'], { ...env, ...s3Only });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('fil_copied0000000001');
  });
});
