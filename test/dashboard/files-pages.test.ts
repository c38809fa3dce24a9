import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { PNG, multipart } from '../files/fixtures.js';

let t: AppUnderTest;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-files-'));
  t = await buildTestApp({ env: { FILES_DIR: dir } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard: file uploads', () => {
  it('turns files on in the settings, lists a submission\'s files and downloads them as attachments', async () => {
    const client = new DashboardClient(t);
    await client.signUp('files-owner@example.com');
    const account = await t.services.accounts.getAccountByIdOrEmail('files-owner@example.com');
    const form = await t.services.forms.createForm(account.id, { name: 'Uploads' });
    const page = await client.get(`/dashboard/forms/${form.id}/settings`);
    expect(page.html).toContain('File uploads');

    const saved = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [
      ['name', 'Uploads'], ['isActive', '1'], ['files', 'store'], ['maxFiles', '2'], ['maxFileBytes', '1048576'], ['maxTotalBytes', '2097152'], ['fileTypes', 'images, pdf'],
    ]);
    expect(saved.res.status).toBe(200);
    expect(await t.services.forms.getForm(form.id)).toMatchObject({ files: 'store', maxFiles: 2, maxFileBytes: 1048576, maxTotalBytes: 2097152, fileTypes: ['images', 'pdf'] });
    const refused = await client.postPairs(`/dashboard/forms/${form.id}/settings`, [['name', 'Uploads'], ['isActive', '1'], ['files', 'store'], ['fileTypes', 'text/html']]);
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('fileTypes-error');

    const res = await submit(t, form.id, { multipart: multipart({ message: 'see attached' }, [{ field: 'photo', name: 'holiday.png', content: PNG }]) }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    const file = await t.handle.db.selectFrom('files').selectAll().where('submission_id', '=', submissionId).executeTakeFirstOrThrow();
    const submissionPage = await client.get(`/dashboard/submissions/${submissionId}`);
    expect(submissionPage.html).toContain(`/dashboard/files/${file.id}`);
    expect(submissionPage.html).toContain('holiday.png');
    const download = await client.get(`/dashboard/files/${file.id}`);
    expect(download.res.status).toBe(200);
    expect(download.res.headers.get('content-disposition')).toMatch(/^attachment; filename="holiday\.png"/);
    expect(download.res.headers.get('content-security-policy')).toBe('sandbox');
    expect(download.res.headers.get('x-content-type-options')).toBe('nosniff');
    // Another account's file is not found.
    const other = new DashboardClient(t);
    await other.signUp('files-other@example.com');
    expect((await other.get(`/dashboard/files/${file.id}`)).res.status).toBe(404);
  });
});
