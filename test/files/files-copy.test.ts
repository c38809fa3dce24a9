import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { createCopyStorages } from '../../src/features/files/file-storage.factory.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { PNG, multipart } from './fixtures.js';

// `formgate files copy --to s3` (docs/files.md, Storage) moves the local folder's files into the S3
// store under the same keys, so the rows need no change when FILES_STORAGE becomes s3.
let t: AppUnderTest;
let s3: TestS3Server;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-files-copy-'));
  s3 = await startS3Server();
  t = await buildTestApp({ env: { FILES_DIR: dir } });
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function bytesOf(content: Readable | undefined): Promise<Buffer | undefined> {
  if (!content) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function uploaded(formId: string, content: Buffer): Promise<string> {
  const res = await submit(t, formId, { multipart: multipart({ message: 'hi' }, [{ field: 'attachment', name: 'a.png', content }]) }, JSON_ACCEPT);
  expect(res.status).toBe(200);
  const { submissionId } = (await res.json()) as { submissionId: string };
  return (await t.handle.db.selectFrom('files').select('storage_key').where('submission_id', '=', submissionId).executeTakeFirstOrThrow()).storage_key;
}

describe('copying the local files to S3', () => {
  it('copies every file under its key, byte for byte; a second run copies them again; a missing one is named', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store' } });
    const second = Buffer.concat([PNG, Buffer.alloc(70_000, 3)]);
    const keys = [await uploaded(owner.form.id, PNG), await uploaded(owner.form.id, second)];
    const { FILES_STORAGE: _local, ...s3Only } = s3.env;
    const { from, to } = createCopyStorages(parseConfig({ FILES_DIR: dir, ...s3Only }).files);
    try {
      const total = Number((await t.handle.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      expect(await t.services.files.copyFiles(from, to)).toEqual({ copied: total, missing: [] });
      expect(await bytesOf(await to.get(keys[0]!))).toEqual(PNG);
      expect(await bytesOf(await to.get(keys[1]!))).toEqual(second);

      expect(await t.services.files.copyFiles(from, to)).toEqual({ copied: total, missing: [] });
      await from.delete(keys[1]!);
      const gone = await t.handle.db.selectFrom('files').select('id').where('storage_key', '=', keys[1]!).executeTakeFirstOrThrow();
      expect(await t.services.files.copyFiles(from, to)).toEqual({ copied: total - 1, missing: [gone.id] });
    } finally {
      await Promise.all([from.close(), to.close()]);
    }
  });

  it('refuses without an S3 store configured', () => {
    expect(() => createCopyStorages(parseConfig({ FILES_DIR: dir }).files)).toThrow(/S3_BUCKET/);
  });
});
