import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from '../helpers/app.js';
import { startClamd, type TestClamd } from '../helpers/clamd.js';
import { createOwner } from '../helpers/factories.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { EICAR, PNG, multipart } from './fixtures.js';

let t: TestApp;
let clamd: TestClamd | undefined;
let port: number;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-files-'));
  port = await freePort();
  t = await startTestApp({ env: { FILES_DIR: dir, CLAMD_URL: `tcp://127.0.0.1:${port}` } });
});
afterAll(async () => {
  await t?.close();
  await clamd?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function upload(formId: string, name: string, content: Buffer) {
  const res = await submit(t, formId, { multipart: multipart({ message: 'hi' }, [{ field: 'file', name, content }]) }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  return (await res.json()) as { submissionId: string; filtered?: string };
}

const fileOf = (submissionId: string) => t.handle.db.selectFrom('files').selectAll().where('submission_id', '=', submissionId).executeTakeFirst();

describe('clamd scanning', () => {
  it('clamd not answering: the submission is accepted, its file kept unscanned, and scanned later', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store', fileTypes: ['images', 'text'] } });
    const { submissionId, filtered } = await upload(owner.form.id, 'a.png', PNG);
    expect(filtered).toBeUndefined();
    expect((await fileOf(submissionId))?.scan_state).toBe('unscanned');

    clamd = await startClamd(port);
    await t.services.files.sweep();
    expect((await fileOf(submissionId))?.scan_state).toBe('clean');
  });

  it('EICAR makes the submission spam (malware) and the file is not kept; a clean file is marked clean', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store', fileTypes: ['images', 'text'] } });
    const infected = await upload(owner.form.id, 'eicar.txt', EICAR);
    expect(infected.filtered).toBe('spam');
    const submission = await t.services.submissionQueries.getSubmission(owner.account.id, infected.submissionId);
    expect(submission.spamReason).toBe('malware');
    expect(await fileOf(infected.submissionId)).toBeUndefined();
    expect(await t.handle.db.selectFrom('files').select('id').where('form_id', '=', owner.form.id).execute()).toEqual([]);

    const clean = await upload(owner.form.id, 'a.png', PNG);
    expect(clean.filtered).toBeUndefined();
    expect((await fileOf(clean.submissionId))?.scan_state).toBe('clean');
  });
});
