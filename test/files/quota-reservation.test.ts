import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { PNG, multipart } from './fixtures.js';

const KIB = 1024;
const QUOTA = 1024 * KIB;

let t: AppUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-quota-'));
  t = await buildTestApp({ env: { FILES_DIR: dir, FILES_QUOTA_BYTES: String(QUOTA) } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A PNG of exactly `bytes` bytes (its magic bytes, then filler). */
const pngOf = (bytes: number) => Buffer.concat([PNG, Buffer.alloc(bytes - PNG.length, 7)]);

/** Bytes the account's folder holds on disk: what was really stored. */
function bytesOnDisk(accountId: string): number {
  const folder = join(dir, accountId);
  let total = 0;
  try {
    for (const name of readdirSync(folder)) total += statSync(join(folder, name)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return total;
}

async function rowBytes(accountId: string): Promise<number> {
  const rows = await t.handle.db.selectFrom('files').select('size').where('account_id', '=', accountId).execute();
  return rows.reduce((sum, r) => sum + Number(r.size), 0);
}

const upload = (formId: string, content: Buffer, fields: Record<string, string> = { message: 'hi' }) =>
  submit(t, formId, { multipart: multipart(fields, [{ field: 'a', name: 'a.png', content }]) }, JSON_ACCEPT);

describe('the file quota is reserved before a file is written', () => {
  it('eight parallel 300 KiB uploads against a 1 MiB quota never store more than the quota; the others are 413 saying so', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store', maxFileBytes: 512 * KIB, maxTotalBytes: 512 * KIB } });
    const file = pngOf(300 * KIB);
    const answers = await Promise.all(Array.from({ length: 8 }, () => upload(owner.form.id, file)));
    const bodies = await Promise.all(answers.map(async (res) => ({ status: res.status, body: (await res.json()) as { error?: string; message?: string } })));
    const accepted = bodies.filter((a) => a.status === 200);
    const refused = bodies.filter((a) => a.status !== 200);
    // Each request declares its length, so each file reserves its whole size at once: as many
    // are stored as fit, rather than all taking a part and all failing for want of the rest.
    expect(accepted.length).toBe(Math.floor(QUOTA / file.length));
    for (const answer of refused) {
      expect(answer.status).toBe(413);
      expect(answer.body.error).toBe('payload_too_large');
      expect(answer.body.message).toMatch(/quota/);
    }
    expect(bytesOnDisk(owner.account.id)).toBe(accepted.length * file.length);
    expect(await rowBytes(owner.account.id)).toBe(accepted.length * file.length);
  });

  it('without a declared length (chunked bodies) parallel uploads still never store more than the quota', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store', maxFileBytes: 512 * KIB, maxTotalBytes: 512 * KIB } });
    const file = pngOf(300 * KIB);
    const chunked = async () => {
      const encoded = new Response(multipart({ message: 'hi' }, [{ field: 'a', name: 'a.png', content: file }]));
      const res = await t.fetch(`/v1/submit/${owner.form.id}`, {
        method: 'POST',
        headers: { ...JSON_ACCEPT, 'content-type': encoded.headers.get('content-type')! },
        body: encoded.body,
        duplex: 'half',
      } as RequestInit);
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    const answers = await Promise.all(Array.from({ length: 8 }, chunked));
    // Sizes unknown, files reserve as they arrive: near the quota, how many get through depends
    // on the order, but never more than fit.
    const accepted = answers.filter((a) => a.status === 200).length;
    expect(accepted * file.length).toBeLessThanOrEqual(QUOTA);
    for (const answer of answers.filter((a) => a.status !== 200)) expect(answer).toEqual({ status: 413, body: expect.objectContaining({ error: 'payload_too_large' }) });
    expect(bytesOnDisk(owner.account.id)).toBe(accepted * file.length);
    expect(await rowBytes(owner.account.id)).toBe(accepted * file.length);
  });

  it('what a refused or failed upload reserved is given back: the rest of the quota still fits exactly', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store', maxFileBytes: 2 * QUOTA, maxTotalBytes: 2 * QUOTA, requiredFields: ['email'] } });
    // Refused after its file was stored: a required field is missing.
    const refused = await upload(owner.form.id, pngOf(QUOTA));
    expect(refused.status).toBe(400);
    // Over the quota by one byte: refused once its bytes pass what is left.
    const over = await upload(owner.form.id, pngOf(QUOTA + 1), { email: 'a@example.com' });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { message: string }).message).toMatch(/quota/);
    expect(await rowBytes(owner.account.id)).toBe(0);
    const exact = await upload(owner.form.id, pngOf(QUOTA), { email: 'a@example.com' });
    expect(exact.status).toBe(200);
    expect(bytesOnDisk(owner.account.id)).toBe(QUOTA);
    const more = await upload(owner.form.id, PNG, { email: 'a@example.com' });
    expect(more.status).toBe(413);
  });

  it('a reservation a crash left behind is released by the sweeper', async () => {
    const owner = await createOwner(t.services, { form: { files: 'store' } });
    // The row of an upload whose process died mid-file: no submission, its reservation held.
    await t.handle.db
      .insertInto('files')
      .values({
        id: 'fil_crashedupload001', account_id: owner.account.id, form_id: owner.form.id, submission_id: null, field: 'a', name: 'a.png',
        size: QUOTA, type: 'image/png', storage_key: `${owner.account.id}/fil_crashedupload001`, created_at: new Date(Date.now() - 2 * 3600_000).toISOString(),
      })
      .execute();
    expect((await upload(owner.form.id, PNG)).status).toBe(413);
    await t.services.files.sweep();
    expect((await upload(owner.form.id, PNG)).status).toBe(200);
  });
});
