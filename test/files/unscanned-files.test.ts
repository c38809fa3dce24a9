import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { startClamd, type TestClamd } from '../helpers/clamd.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createApiKey, createForm } from '../helpers/factories.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { EICAR, PNG, multipart } from './fixtures.js';

let t: AppUnderTest;
let clamd: TestClamd | undefined;
let port: number;
let dir: string;
let owner: DashboardClient;
let formId: string;
let apiAuth: { authorization: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-unscanned-'));
  port = await freePort();
  clamd = await startClamd(port);
  t = await buildTestApp({ env: { FILES_DIR: dir, CLAMD_URL: `tcp://127.0.0.1:${port}` } });
  owner = new DashboardClient(t);
  await owner.signUp('scans-owner@example.com');
  const account = await t.services.accounts.getAccountByIdOrEmail('scans-owner@example.com');
  formId = (await createForm(t.services, account.id, { name: 'Uploads', files: 'store', fileTypes: ['images', 'text'] })).id;
  apiAuth = { authorization: `Bearer ${await createApiKey(t.services, account.id)}` };
});
afterAll(async () => {
  await t?.close();
  await clamd?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function stopClamd(): Promise<void> {
  await clamd?.close();
  clamd = undefined;
}

async function upload(name: string, content: Buffer): Promise<{ submissionId: string; fileId: string }> {
  const res = await submit(t, formId, { multipart: multipart({ message: 'hi' }, [{ field: 'file', name, content }]) }, JSON_ACCEPT);
  // A submission is never lost because clamd is down.
  expect(res.status).toBe(200);
  const { submissionId } = (await res.json()) as { submissionId: string };
  const row = await t.handle.db.selectFrom('files').select('id').where('submission_id', '=', submissionId).executeTakeFirstOrThrow();
  return { submissionId, fileId: row.id };
}

const scanState = async (fileId: string) =>
  (await t.handle.db.selectFrom('files').select('scan_state').where('id', '=', fileId).executeTakeFirst())?.scan_state;

/** The three ways to download a file: the management API, a signed link, the dashboard. */
async function downloads(fileId: string): Promise<Response[]> {
  const link = new URL((await t.services.files.linker())(fileId));
  return Promise.all([
    t.fetch(`/v1/api/files/${fileId}`, { headers: apiAuth }),
    t.fetch(`${link.pathname}${link.search}`),
    owner.get(`/dashboard/files/${fileId}`).then(({ res }) => res),
  ]);
}

describe('with CLAMD_URL set, a file is served only once scanned clean', () => {
  it('clamd stopped: the upload is accepted, every download is 409 file_not_scanned with Retry-After until clamd is back and the file scanned', async () => {
    const before = await upload('before.png', PNG);
    expect((await downloads(before.fileId)).map((r) => r.status)).toEqual([200, 200, 200]);

    await stopClamd();
    const { submissionId, fileId } = await upload('photo.png', PNG);
    expect(await scanState(fileId)).toBe('unscanned');
    const [api, link, dashboard] = await downloads(fileId);
    for (const res of [api!, link!]) {
      expect(res.status).toBe(409);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toEqual({ error: 'file_not_scanned', message: expect.stringMatching(/scanned/) });
    }
    expect(dashboard!.status).toBe(409);
    expect(Number(dashboard!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(dashboard!.headers.get('content-disposition')).toBeNull();
    const page = await owner.get(`/dashboard/submissions/${submissionId}`);
    expect(page.html).toMatch(/photo\.png <span class="muted">\([^)]*being scanned\)/);
    expect(page.html).not.toContain(`/dashboard/files/${fileId}`);
    // A clamd that does not answer leaves the file as it is.
    await t.services.files.sweep();
    expect(await scanState(fileId)).toBe('unscanned');

    clamd = await startClamd(port);
    await t.services.files.sweep();
    expect(await scanState(fileId)).toBe('clean');
    const served = await downloads(fileId);
    expect(served.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(Buffer.from(await served[0]!.arrayBuffer())).toEqual(PNG);
    expect(served[2]!.headers.get('content-disposition')).toMatch(/^attachment/);
    expect((await owner.get(`/dashboard/submissions/${submissionId}`)).html).toContain(`/dashboard/files/${fileId}`);
  });

  it('the rescan goes on past a file clamd refuses: the files after it are scanned, malware among them removed', async () => {
    await stopClamd();
    const refused = await upload('large.png', Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024, 1)]));
    const infected = await upload('eicar.txt', EICAR);
    const clean = await upload('small.png', PNG);
    const infectedKey = (await t.handle.db.selectFrom('files').select('storage_key').where('id', '=', infected.fileId).executeTakeFirstOrThrow()).storage_key;
    // The refused file made the first the rescan meets, whatever the random IDs: by ID and by age.
    const firstId = 'fil_0000000000000000';
    await t.handle.db
      .updateTable('files')
      .set({ id: firstId, created_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', refused.fileId)
      .execute();

    // clamd refuses a stream longer than this: "INSTREAM size limit exceeded".
    clamd = await startClamd(port, { streamMaxLength: '1M' });
    await t.services.files.sweep();
    expect(await scanState(firstId)).toBe('unscanned');
    expect(await scanState(clean.fileId)).toBe('clean');
    expect(await scanState(infected.fileId)).toBeUndefined();
    expect(await t.services.files.storage.get(infectedKey)).toBeUndefined();
    expect((await downloads(clean.fileId)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await downloads(firstId)).map((r) => r.status)).toEqual([409, 409, 409]);
  });
});
