import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';
import { PNG, multipart } from './fixtures.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-files-'));
  receiver = await startHttpsReceiver();
  t = await buildTestApp({ env: { FILES_DIR: dir, HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000' }, hookTransport: { ca: receiver.ca } });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('files in hook bodies', () => {
  it('carry a signed link valid 7 days, which downloads the file; a spam submission sends nothing', async () => {
    const owner = await createOwner(t.services, { planId: 'pro', form: { files: 'store' } });
    const hook = await t.fetch('/v1/api/hooks', {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}/in` }),
    });
    expect(hook.status).toBe(201);
    const res = await submit(t, owner.form.id, { multipart: multipart({ name: 'Ada' }, [{ field: 'cv', name: 'cv.png', content: PNG }]) }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    await waitFor(() => receiver.received.some((r) => r.body.includes(submissionId)), 15_000, 'the delivery');
    const body = JSON.parse(receiver.received.find((r) => r.body.includes(submissionId))!.body) as {
      fields: { name: string; cv: { file: { id: string; name: string; size: number; type: string; url: string } } };
    };
    expect(body.fields.name).toBe('Ada');
    const { file } = body.fields.cv;
    expect(file).toMatchObject({ name: 'cv.png', size: PNG.length, type: 'image/png' });
    const link = new URL(file.url);
    expect(`${link.origin}${link.pathname}`).toBe(`${t.config.baseUrl}/v1/files/${file.id}`);
    const expires = Number(link.searchParams.get('expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(7 * 24 * 3600 - 120);
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(7 * 24 * 3600);
    const download = await t.fetch(`${link.pathname}${link.search}`);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PNG);

    // Spam (the honeypot): stored with its file for review, never linked, never sent.
    const spam = await submit(t, owner.form.id, { multipart: multipart({ name: 'Bot', _honey: 'x' }, [{ field: 'cv', name: 'cv.png', content: PNG }]) }, JSON_ACCEPT);
    const spamBody = (await spam.json()) as { submissionId: string; filtered?: string };
    expect(spamBody.filtered).toBe('spam');
    const spamFile = await t.handle.db.selectFrom('files').selectAll().where('submission_id', '=', spamBody.submissionId).executeTakeFirstOrThrow();
    const signed = (await t.services.files.linker())(spamFile.id);
    expect((await t.fetch(`${new URL(signed).pathname}${new URL(signed).search}`)).status).toBe(404);
    // The owner still downloads it through the API.
    const owned = await t.fetch(`/v1/api/files/${spamFile.id}`, { headers: owner.auth });
    expect(owned.status).toBe(200);
    expect(Buffer.from(await owned.arrayBuffer())).toEqual(PNG);
  });
});
