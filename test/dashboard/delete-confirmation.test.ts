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
  dir = mkdtempSync(join(tmpdir(), 'formgate-delete-'));
  t = await buildTestApp({ env: { FILES_DIR: dir, SUBMIT_RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('deleting asks first, naming what goes', () => {
  it('one submission: its ID, when it came and each file; several: how many, and that their files go too', async () => {
    const client = new DashboardClient(t);
    await client.signUp('delete-owner@example.com');
    const account = await t.services.accounts.getAccountByIdOrEmail('delete-owner@example.com');
    const form = await t.services.forms.createForm(account.id, { name: 'Applications', files: 'store' });
    const send = async (files: Array<{ field: string; name: string; content: Buffer }>) => {
      const res = await submit(t, form.id, { multipart: multipart({ message: 'hi' }, files) }, JSON_ACCEPT);
      return ((await res.json()) as { submissionId: string }).submissionId;
    };
    const withFiles = await send([{ field: 'cv', name: 'cv.png', content: PNG }, { field: 'photo', name: 'me <1>.png', content: PNG }]);
    const other = await send([]);

    const bulk = `/dashboard/forms/${form.id}/submissions/bulk`;
    await client.get(`/dashboard/submissions/${withFiles}`);
    const one = await client.postPairs(bulk, [['action', 'delete'], ['ids', withFiles]]);
    expect(one.res.status).toBe(200);
    expect(one.html).toMatch(new RegExp(`<p id="confirm-question">The submission ${withFiles} to Applications, received [^<]+, will be deleted for good, with its pending deliveries\\. This cannot be undone\\. Its 2 files are deleted with it:</p>`));
    expect(one.html).toContain(`<li>cv.png (${PNG.length} B)</li>`);
    expect(one.html).toContain(`<li>me &lt;1&gt;.png (${PNG.length} B)</li>`);
    expect(await t.services.files.listFilesOfSubmission(withFiles)).toHaveLength(2);

    const several = await client.postPairs(bulk, [['action', 'delete'], ['ids', withFiles], ['ids', other]]);
    expect(several.html).toContain('The 2 selected submissions of Applications will be deleted for good, with their pending deliveries. This cannot be undone. Their uploaded files go with them.');

    // Another account's submission is not named (nor found).
    const stranger = new DashboardClient(t);
    await stranger.signUp('delete-stranger@example.com');
    const strangerForm = await t.services.forms.createForm((await t.services.accounts.getAccountByIdOrEmail('delete-stranger@example.com')).id, { name: 'Theirs' });
    await stranger.get('/dashboard/forms');
    const probe = await stranger.postPairs(`/dashboard/forms/${strangerForm.id}/submissions/bulk`, [['action', 'delete'], ['ids', withFiles]]);
    expect(probe.html).not.toContain('cv.png');

    await client.get(`/dashboard/submissions/${withFiles}`);
    const done = await client.postPairs(bulk, [['action', 'delete'], ['ids', withFiles], ['confirm', '1']]);
    expect(done.res.status).toBe(303);
    expect(await t.services.files.listFilesOfSubmission(withFiles)).toEqual([]);
  });
});
