import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server, type Socket } from 'node:net';
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

  it('a clamd that takes the connection and never reads nor answers: answered within the scan budget, the file kept unscanned', async () => {
    // Holds every socket open and pauses it, so writes back up as they would against a stuck clamd.
    const held: Socket[] = [];
    const stalled: Server = createServer((socket) => {
      socket.pause();
      held.push(socket);
    });
    await new Promise<void>((settle) => stalled.listen(0, '127.0.0.1', settle));
    const stalledPort = (stalled.address() as { port: number }).port;
    const app = await startTestApp({ database: t.database, env: { FILES_DIR: dir, CLAMD_URL: `tcp://127.0.0.1:${stalledPort}` } });
    try {
      const owner = await createOwner(app.services, { form: { files: 'store', fileTypes: ['images', 'text'] } });
      const big = Buffer.concat([PNG, Buffer.alloc(4 * 1024 * 1024, 1)]);
      const started = Date.now();
      const res = await submit(app, owner.form.id, { multipart: multipart({ message: 'hi' }, [{ field: 'a', name: 'a.png', content: big }, { field: 'b', name: 'b.png', content: PNG }]) }, JSON_ACCEPT);
      expect(res.status).toBe(200);
      // One budget of 5 s for the submission, not a wait per file, nor forever.
      expect(Date.now() - started).toBeLessThan(9_000);
      const { submissionId, filtered } = (await res.json()) as { submissionId: string; filtered?: string };
      expect(filtered).toBeUndefined();
      const rows = await app.handle.db.selectFrom('files').select('scan_state').where('submission_id', '=', submissionId).execute();
      expect(rows.map((r) => r.scan_state)).toEqual(['unscanned', 'unscanned']);
      expect(held.length).toBeGreaterThanOrEqual(1);
    } finally {
      await app.close();
      for (const socket of held) socket.destroy();
      await new Promise<void>((settle) => stalled.close(() => settle()));
    }
  });
});
