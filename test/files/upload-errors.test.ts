import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTED_PAGE_CSP } from '../../src/features/submit/views/hosted-pages.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, countStored, submit } from '../helpers/submit.js';
import { HTML, PNG, multipart } from './fixtures.js';

interface ErrorBody {
  error: string;
  message: string;
  fieldErrors?: Record<string, string>;
}

let t: AppUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'formgate-upload-errors-'));
  t = await buildTestApp({ env: { FILES_DIR: dir, SUBMIT_RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const storeForm = (settings = {}) => createOwner(t.services, { form: { files: 'store', ...settings } });
const padded = (bytes: number) => Buffer.concat([PNG, Buffer.alloc(bytes - PNG.length)]);

describe('a refused upload names the file and the limit', () => {
  it('a file over the per-file limit: its name and the limit in KiB/MiB, in JSON and on the hosted page', async () => {
    const owner = await storeForm({ maxFileBytes: 1536, maxTotalBytes: 10 * 1024 * 1024 });
    const files = [{ field: 'cv', name: 'holiday.png', content: padded(4000) }];
    const json = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, files) }, JSON_ACCEPT);
    expect(json.status).toBe(413);
    expect((await json.json()) as ErrorBody).toEqual({
      error: 'payload_too_large',
      message: 'The file “holiday.png” is larger than 1.5 KiB, the most this form accepts for one file.',
    });

    const page = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, files) }, { ...BROWSER_ACCEPT, referer: 'https://shop.example/contact' });
    expect(page.status).toBe(413);
    const html = await page.text();
    expect(html).toContain('<p>The file “holiday.png” is larger than 1.5 KiB, the most this form accepts for one file.</p>');
    expect(html).not.toContain('1536');
    expect(html).toContain('<a href="https://shop.example/contact" rel="noopener" data-back>');
    expect(await countStored(t, owner.form.id)).toBe(0);
  });

  it("the submission's total: the file that went over and the limit, in the form's language", async () => {
    const owner = await storeForm({ maxFileBytes: 1024 * 1024, maxTotalBytes: 1.5 * 1024 * 1024, language: 'de' });
    const files = [
      { field: 'a', name: 'one.png', content: padded(1024 * 1024) },
      { field: 'b', name: 'two.png', content: padded(1024 * 1024) },
    ];
    const res = await submit(t, owner.form.id, { multipart: multipart({}, files) }, JSON_ACCEPT);
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).message).toBe(
      'Die Dateien zusammen sind größer als 1.5 MiB, das Höchste, was dieses Formular in einer Nachricht annimmt („two.png“ ging darüber).',
    );
  });

  it('too many files: the count the form takes', async () => {
    const owner = await storeForm({ maxFiles: 2 });
    const files = ['1.png', '2.png', '3.png'].map((name) => ({ field: 'a', name, content: PNG }));
    const res = await submit(t, owner.form.id, { multipart: multipart({}, files) }, JSON_ACCEPT);
    expect(res.status).toBe(413);
    expect(((await res.json()) as ErrorBody).message).toBe('This form accepts at most 2 files in one submission.');
  });
});

describe('a refused type lists the accepted ones', () => {
  it('names the file and the form’s types in words, in JSON and on the page', async () => {
    const owner = await storeForm({ fileTypes: ['images', 'pdf'] });
    const files = [{ field: 'picture', name: 'cat.png', content: HTML, type: 'image/png' }];
    const res = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, files) }, JSON_ACCEPT);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).fieldErrors).toEqual({ picture: '“cat.png” is a type of file this form does not accept. It accepts: images, PDF.' });

    const page = await submit(t, owner.form.id, { multipart: multipart({ message: 'x' }, files) }, { ...BROWSER_ACCEPT, 'accept-language': 'fr' });
    const html = await page.text();
    expect(html).toContain('<li><strong>picture</strong>: « cat.png » est un type de fichier que ce formulaire n’accepte pas. Il accepte : images, PDF.</li>');
  });

  it('a file name is text on the page, never markup', async () => {
    const owner = await storeForm({ maxFileBytes: 1024 });
    const files = [{ field: 'a', name: '<img src=x onerror=alert(1)>.png', content: padded(2048) }];
    const res = await submit(t, owner.form.id, { multipart: multipart({}, files) }, BROWSER_ACCEPT);
    expect(res.status).toBe(413);
    const html = await res.text();
    expect(html).toContain('“&lt;img src=x onerror=alert(1)&gt;.png” is larger than 1 KiB');
    expect(html).not.toContain('<img');
    expect(res.headers.get('content-security-policy')).toBe(HOSTED_PAGE_CSP);
  });
});
