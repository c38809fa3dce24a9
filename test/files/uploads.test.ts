import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedFileUrl } from '../../src/platform/lib/file-links.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createAccount, createForm, createOwner, setCreatedAt } from '../helpers/factories.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { countStored, JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';
import { HTML, PNG, multipart } from './fixtures.js';

interface FileValue {
  file: { id: string; name: string; size: number; type: string };
}

for (const storage of ['local', 's3'] as const) {
  describe(`file uploads, ${storage} storage`, () => {
    let t: TestApp;
    let s3: TestS3Server | undefined;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'formgate-files-'));
      s3 = storage === 's3' ? await startS3Server() : undefined;
      t = await startTestApp({ env: { FILES_DIR: dir, FILES_QUOTA_BYTES: String(4 * 1024 * 1024), ...(s3?.env ?? {}) } });
    });
    afterAll(async () => {
      await t?.close();
      await s3?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const fileRows = (formId: string) => t.handle.db.selectFrom('files').selectAll().where('form_id', '=', formId).execute();
    const stored = async (key: string): Promise<Buffer | undefined> => {
      const content = await t.services.files.storage.get(key);
      if (!content) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of content) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    const storeForm = (settings = {}) => createOwner(t.services, { form: { files: 'store', ...settings } });

    async function submitOneFile(formId: string, fields: Record<string, string> = { message: 'hello' }, name = 'photo.exe', content = PNG) {
      const res = await submit(t, formId, { multipart: multipart(fields, [{ field: 'attachment', name, content }]) }, JSON_ACCEPT);
      expect(res.status).toBe(200);
      const { submissionId } = (await res.json()) as { submissionId: string };
      const row = await t.handle.db.selectFrom('files').selectAll().where('submission_id', '=', submissionId).executeTakeFirstOrThrow();
      return { submissionId, fileId: row.id, key: row.storage_key };
    }

    it('with files off, file parts are ignored exactly as docs/api.md says', async () => {
      const owner = await createOwner(t.services);
      const res = await submit(t, owner.form.id, { multipart: multipart({ message: 'hi' }, [{ field: 'attachment', name: 'a.png', content: PNG }]) }, JSON_ACCEPT);
      expect(res.status).toBe(200);
      const { submissionId } = (await res.json()) as { submissionId: string };
      const submission = await t.services.submissionQueries.getSubmission(owner.account.id, submissionId);
      expect(submission.payload).toEqual({ message: 'hi' });
      expect(await fileRows(owner.form.id)).toEqual([]);
    });

    it('takes a PNG named .exe as a PNG, stores it whole and serves it as an attachment', async () => {
      const owner = await storeForm();
      const { submissionId, fileId, key } = await submitOneFile(owner.form.id);
      const submission = await t.services.submissionQueries.getSubmission(owner.account.id, submissionId);
      expect(submission.payload.attachment).toEqual({ file: { id: fileId, name: 'photo.exe', size: PNG.length, type: 'image/png' } });
      expect(await stored(key)).toEqual(PNG);

      const download = await fetch(`${t.url}/v1/api/files/${fileId}`, { headers: owner.auth });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="photo\.exe"/);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('content-security-policy')).toBe('sandbox');
      expect(download.headers.get('content-type')).toBe('application/octet-stream');
      expect(Buffer.from(await download.arrayBuffer())).toEqual(PNG);

      const other = await createOwner(t.services);
      expect((await fetch(`${t.url}/v1/api/files/${fileId}`, { headers: other.auth })).status).toBe(404);
      expect((await fetch(`${t.url}/v1/api/files/fil_nothing`, { headers: owner.auth })).status).toBe(404);
    });

    it('refuses HTML named .png, naming the field, and keeps nothing', async () => {
      const owner = await storeForm();
      const res = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, [{ field: 'picture', name: 'cat.png', content: HTML, type: 'image/png' }]) }, JSON_ACCEPT);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; fieldErrors: Record<string, string> };
      expect(body.error).toBe('validation_failed');
      expect(Object.keys(body.fieldErrors)).toEqual(['picture']);
      expect(await fileRows(owner.form.id)).toEqual([]);
      expect(await countStored(t, owner.form.id)).toBe(0);
    });

    it('cleans a path-traversal name; the storage key never uses it', async () => {
      const owner = await storeForm();
      const { submissionId, key } = await submitOneFile(owner.form.id, { message: 'x' }, '../../../etc/\u202epasswd.png');
      const submission = await t.services.submissionQueries.getSubmission(owner.account.id, submissionId);
      expect((submission.payload.attachment as unknown as FileValue).file.name).toBe('passwd.png');
      expect(key).toBe(`${owner.account.id}/${(submission.payload.attachment as unknown as FileValue).file.id}`);
    });

    it('holds files to the per-file, per-submission and count limits: 413, nothing kept', async () => {
      const owner = await storeForm({ maxFileBytes: 1024, maxTotalBytes: 1500, maxFiles: 2 });
      const big = Buffer.concat([PNG, Buffer.alloc(2000)]);
      const small = Buffer.concat([PNG, Buffer.alloc(800)]);
      const cases = [
        [{ field: 'a', name: 'big.png', content: big }],
        [
          { field: 'a', name: '1.png', content: small },
          { field: 'b', name: '2.png', content: small },
        ],
        [
          { field: 'a', name: '1.png', content: PNG },
          { field: 'a', name: '2.png', content: PNG },
          { field: 'a', name: '3.png', content: PNG },
        ],
      ];
      for (const files of cases) {
        const res = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, files) }, JSON_ACCEPT);
        expect([files.length, res.status, await res.text()]).toEqual([files.length, 413, expect.stringContaining('payload_too_large')]);
      }
      await waitFor(async () => (await fileRows(owner.form.id)).length === 0, 5000, 'refused files to be removed');
      expect(await countStored(t, owner.form.id)).toBe(0);
      // Two files within every limit are taken, in the order sent.
      const res = await submit(t, owner.form.id, { multipart: multipart({}, [{ field: 'a', name: '1.png', content: PNG }, { field: 'a', name: '2.png', content: PNG }]) }, JSON_ACCEPT);
      expect(res.status).toBe(200);
      const { submissionId } = (await res.json()) as { submissionId: string };
      const payload = (await t.services.submissionQueries.getSubmission(owner.account.id, submissionId)).payload;
      expect((payload.a as unknown as FileValue[]).map((v) => v.file.name)).toEqual(['1.png', '2.png']);
    });

    it('an empty file input is no file', async () => {
      const owner = await storeForm();
      const res = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, [{ field: 'attachment', name: '', content: Buffer.alloc(0) }]) }, JSON_ACCEPT);
      expect(res.status).toBe(200);
      const { submissionId } = (await res.json()) as { submissionId: string };
      expect((await t.services.submissionQueries.getSubmission(owner.account.id, submissionId)).payload).toEqual({ message: 'x' });
    });

    it("refuses files over the account's quota with a message that says so", async () => {
      const owner = await storeForm({ maxFileBytes: 3 * 1024 * 1024, maxTotalBytes: 3 * 1024 * 1024 });
      const file = Buffer.concat([PNG, Buffer.alloc(2.5 * 1024 * 1024)]);
      const first = await submit(t, owner.form.id, { multipart: multipart({}, [{ field: 'a', name: '1.png', content: file }]) }, JSON_ACCEPT);
      expect(first.status).toBe(200);
      const second = await submit(t, owner.form.id, { multipart: multipart({}, [{ field: 'a', name: '2.png', content: file }]) }, JSON_ACCEPT);
      expect(second.status).toBe(413);
      expect(((await second.json()) as { message: string }).message).toMatch(/quota/);
      await waitFor(async () => (await fileRows(owner.form.id)).length === 1, 5000, 'the refused file to be removed');
      expect(await countStored(t, owner.form.id)).toBe(1);
    });

    it('a cut upload (the client closes the socket mid-file) leaves no file and no row', async () => {
      const owner = await storeForm();
      const boundary = 'formgateboundary';
      const head =
        `--${boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhello\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`;
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
      await new Promise((settle) => socket.once('connect', settle));
      socket.write(
        `POST /v1/submit/${owner.form.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n`,
      );
      socket.write(head);
      socket.write(Buffer.concat([PNG, Buffer.alloc(512 * 1024, 1)]));
      // Cut only once the server has begun storing the file.
      await waitFor(async () => (await fileRows(owner.form.id)).length === 1, 5000, 'the upload to start');
      const [row] = await fileRows(owner.form.id);
      socket.destroy();
      await waitFor(async () => (await fileRows(owner.form.id)).length === 0, 5000, 'the cut upload to be removed');
      expect(await stored(row!.storage_key)).toBeUndefined();
      expect(await countStored(t, owner.form.id)).toBe(0);
    });

    it('signed links work for 7 days; a tampered or expired one is 404', async () => {
      const owner = await storeForm();
      const { fileId } = await submitOneFile(owner.form.id);
      const link = (await t.services.files.linker())(fileId);
      const url = new URL(link);
      expect(url.pathname).toBe(`/v1/files/${fileId}`);
      expect(Number(url.searchParams.get('expires'))).toBeGreaterThan(Date.now() / 1000 + 6.9 * 24 * 3600);
      const local = `${t.url}${url.pathname}${url.search}`;
      const ok = await fetch(local);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(Buffer.from(await ok.arrayBuffer())).toEqual(PNG);

      const signature = url.searchParams.get('signature')!;
      const tampered = `${t.url}${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
      expect((await fetch(tampered)).status).toBe(404);
      const later = `${t.url}${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 1}&signature=${signature}`;
      expect((await fetch(later)).status).toBe(404);
      const key = await t.services.instanceSecrets.getSecret('file-links');
      const expired = new URL(signedFileUrl(t.url, key, fileId, Math.floor(Date.now() / 1000) - 1));
      expect((await fetch(expired)).status).toBe(404);
    });

    describe('every deletion removes the files, after the submission', () => {
      async function expectGone(file: { fileId: string; key: string }) {
        expect(await t.handle.db.selectFrom('files').select('id').where('id', '=', file.fileId).executeTakeFirst()).toBeUndefined();
        expect(await stored(file.key)).toBeUndefined();
      }

      it("the owner's delete from the dashboard", async () => {
        const owner = await storeForm();
        const file = await submitOneFile(owner.form.id);
        expect(await stored(file.key)).toEqual(PNG);
        expect(await t.services.lifecycle.deleteSubmissions(owner.account.id, owner.form.id, [file.submissionId])).toBe(1);
        await expectGone(file);
      });

      it('erasure by email address', async () => {
        const owner = await storeForm();
        const file = await submitOneFile(owner.form.id, { email: 'visitor@example.com' });
        const kept = await submitOneFile(owner.form.id, { email: 'other@example.com' });
        expect((await t.services.lifecycle.eraseByEmail(owner.account.id, 'visitor@example.com')).deleted).toBe(1);
        await expectGone(file);
        expect(await stored(kept.key)).toEqual(PNG);
      });

      it('the retention purge', async () => {
        const owner = await storeForm({ retentionDays: 1 });
        const file = await submitOneFile(owner.form.id);
        await setCreatedAt(t.services, 'submissions', file.submissionId, new Date(Date.now() - 3 * 86_400_000).toISOString());
        await t.services.lifecycle.purgeExpiredSubmissions();
        await expectGone(file);
      });

      it('deleting the form', async () => {
        const owner = await storeForm();
        const file = await submitOneFile(owner.form.id);
        await t.services.lifecycle.deleteForm(owner.form.id);
        await expectGone(file);
      });

      it('deleting the account', async () => {
        const account = await createAccount(t.services);
        await createApiKey(t.services, account.id);
        const form = await createForm(t.services, account.id, { files: 'store' });
        const file = await submitOneFile(form.id);
        await t.services.accounts.deleteAccountByOperator(account.id);
        await expectGone(file);
      });
    });

    it('the sweeper removes uploads a crash abandoned, and never a committed file', async () => {
      const owner = await storeForm();
      const kept = await submitOneFile(owner.form.id);
      const abandonedKey = `${owner.account.id}/fil_abandoned0000001`;
      await t.services.files.storage.put(abandonedKey, (await import('node:stream')).Readable.from([PNG]));
      await t.handle.db
        .insertInto('files')
        .values({ id: 'fil_abandoned0000001', account_id: owner.account.id, form_id: owner.form.id, submission_id: null, field: 'a', name: 'a.png', size: PNG.length, type: 'image/png', storage_key: abandonedKey, created_at: new Date(Date.now() - 2 * 3600_000).toISOString() })
        .execute();
      await t.handle.db.updateTable('files').set({ created_at: new Date(Date.now() - 2 * 3600_000).toISOString() }).where('id', '=', kept.fileId).execute();
      expect(await t.services.files.sweep()).toBeGreaterThanOrEqual(1);
      expect(await stored(abandonedKey)).toBeUndefined();
      expect(await stored(kept.key)).toEqual(PNG);
    });
  });
}
