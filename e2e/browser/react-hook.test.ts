import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../client/src/messages.js';
import type { Form } from '../../src/features/forms/form.types.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { launchChromium, servePage } from '../../test/helpers/browser.js';
import { createOwner } from '../../test/helpers/factories.js';
import { countStored } from '../../test/helpers/submit.js';

// client/test/react-app.ts (useFormgate in a small form) bundled with React, served from its own
// origin, driven in Chromium against a real server.
let t: TestApp;
let browser: Browser;
let appJs: string;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../../client/test/react-app.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2019',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  appJs = bundle.outputFiles[0]!.text;
  browser = await launchChromium();
  t = await startTestApp();
});
afterEach(async () => {
  for (const thing of opened.splice(0).reverse()) await thing.close();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function openApp(form: Form, extraField?: string): Promise<Page> {
  const config = { formId: form.id, baseUrl: t.url, ...(extraField ? { extraField } : {}) };
  const page = await servePage(
    `<!doctype html><html lang="en"><body><div id="root"></div>
    <script>window.FORMGATE = ${JSON.stringify(config)};</script><script src="/app.js"></script></body></html>`,
    { '/app.js': appJs },
  );
  opened.push(page);
  const context = await browser.newContext();
  opened.push(context);
  const tab = await context.newPage();
  await tab.goto(page.url);
  await tab.getByRole('button', { name: 'Send', exact: true }).waitFor();
  return tab;
}

describe('useFormgate(formId, {baseUrl}) in a React app', () => {
  it('submits the form, double click included, as one submission; state carries its ID', async () => {
    const { form, account } = await createOwner(t.services);
    const tab = await openApp(form);
    let posts = 0;
    tab.on('request', (r) => {
      if (r.method() === 'POST') posts++;
    });
    await tab.getByRole('button', { name: 'Send', exact: true }).dblclick();
    const status = tab.getByRole('status');
    await status.waitFor();
    const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
    expect(submissions).toHaveLength(1);
    expect(submissions[0]!.payload).toEqual({ name: 'Grace' });
    expect(await status.textContent()).toBe(`Thanks! ${submissions[0]!.id}`);
    expect(posts).toBe(1);
  });

  it('reset() starts a new submission; a plain object is sent as JSON', async () => {
    const { form, account } = await createOwner(t.services);
    const tab = await openApp(form);
    await tab.getByRole('button', { name: 'Send', exact: true }).click();
    await tab.getByRole('status').waitFor();
    await tab.getByRole('button', { name: 'Send another' }).click();
    const posted = tab.waitForRequest((r) => r.method() === 'POST');
    await tab.getByRole('button', { name: 'Send as JSON' }).click();
    await tab.getByRole('status').waitFor();
    expect((await posted).headers()['content-type']).toBe('application/json');
    const { submissions } = await t.services.submissionQueries.listSubmissions(account.id, form.id);
    expect(submissions.map((s) => s.payload)).toEqual([{ name: 'Json', count: 2, tags: ['a', 'b'] }, { name: 'Grace' }]);
  });

  it('a refused field: state failed with the message, fieldErrors names the field', async () => {
    const { form } = await createOwner(t.services);
    const longName = `comment_${'x'.repeat(300)}`;
    const tab = await openApp(form, longName);
    await tab.getByRole('button', { name: 'Send', exact: true }).click();
    expect(await tab.getByRole('alert').textContent()).toBe('A field is not valid.');
    expect(await tab.locator('.field-errors li').allTextContents()).toEqual([
      `${longName.slice(0, 64)}…: field names may have at most 256 characters`,
    ]);
    expect(await countStored(t, form.id)).toBe(0);
  });

  it('after a network error the retry reuses the Idempotency-Key: one submission', async () => {
    const { form } = await createOwner(t.services);
    const tab = await openApp(form);
    const keys: string[] = [];
    let cut = true;
    await tab.route(`${t.url}/v1/submit/${form.id}`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      keys.push(route.request().headers()['idempotency-key']!);
      if (!cut) return route.continue();
      cut = false;
      await route.fetch();
      return route.abort('connectionreset');
    });
    await tab.getByRole('button', { name: 'Send', exact: true }).click();
    expect(await tab.getByRole('alert').textContent()).toBe(messages.network);
    await tab.getByRole('button', { name: 'Send', exact: true }).click();
    await tab.getByRole('status').waitFor();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(await countStored(t, form.id)).toBe(1);
  });
});
