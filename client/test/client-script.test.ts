import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../../test/helpers/app.js';
// @ts-expect-error: a plain .mjs module beside the build script, without declarations.
import { browserBuild } from '../script-options.mjs';

const built = readFileSync(new URL('../dist/formgate.min.js', import.meta.url));
const builtSeal = readFileSync(new URL('../dist/formgate-seal.min.js', import.meta.url));

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('GET /v1/client.js and /v1/client.<hash>.js', () => {
  it('the built script is what the sources build today (a stale build would be served)', async () => {
    const today = (await browserBuild()) as { sealChunk: Buffer; scriptOptions: Parameters<typeof build>[0] };
    const fresh = await build({ ...today.scriptOptions, write: false, logLevel: 'silent' });
    expect(fresh.outputFiles).toHaveLength(1);
    expect(Buffer.from(fresh.outputFiles![0]!.contents).equals(built)).toBe(true);
    expect(today.sealChunk.equals(builtSeal)).toBe(true);
  });

  it('serves the sealing chunk at the one versioned URL the script names, with its integrity', async () => {
    const seal = t.app.clientScript.seal!;
    const sha256 = createHash('sha256').update(builtSeal).digest('hex');
    expect(seal.versionedPath).toBe(`/v1/client-seal.${sha256.slice(0, 16)}.js`);
    expect(built.toString('utf8')).toContain(seal.versionedPath.slice('/v1/'.length));
    expect(built.toString('utf8')).toContain(seal.integrity);
    const res = await t.fetch(seal.versionedPath, { headers: { origin: 'https://www.example.org' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://www.example.org');
    expect(res.headers.get('etag')).toBe(`"${seal.hash}"`);
    expect(Buffer.from(await res.arrayBuffer()).equals(builtSeal)).toBe(true);
    expect((await t.fetch('/v1/client-seal.0123456789abcdef.js')).status).toBe(404);
  });

  it('serves the built script under a name derived from its bytes, with its SRI value', () => {
    const sha256 = createHash('sha256').update(built).digest('hex');
    expect(t.app.clientScript.versionedPath).toBe(`/v1/client.${sha256.slice(0, 16)}.js`);
    expect(t.app.clientScript.integrity).toBe(`sha384-${createHash('sha384').update(built).digest('base64')}`);
  });

  it('the plain URL: the built bytes, JavaScript, short caching, readable from any origin', async () => {
    const res = await t.fetch('/v1/client.js', { headers: { origin: 'https://www.example.org' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://www.example.org');
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(Buffer.from(await res.arrayBuffer()).equals(built)).toBe(true);

    const anonymous = await t.fetch('/v1/client.js');
    expect(anonymous.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the versioned URL: the same bytes, cached for a year and immutable', async () => {
    const res = await t.fetch(`${t.app.clientScript.versionedPath}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(Buffer.from(await res.arrayBuffer()).equals(built)).toBe(true);
  });

  it('answers 304 to a matching If-None-Match, and 200 to another tag', async () => {
    const first = await t.fetch('/v1/client.js');
    const etag = first.headers.get('etag')!;
    expect(etag).toBe(`"${t.app.clientScript.hash}"`);
    const again = await t.fetch('/v1/client.js', { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const changed = await t.fetch('/v1/client.js', { headers: { 'if-none-match': '"0000000000000000"' } });
    expect(changed.status).toBe(200);
  });

  it('HEAD answers the headers without the body', async () => {
    const res = await t.fetch('/v1/client.js', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  it('another hash is an unknown route: an old URL never serves other bytes', async () => {
    const res = await t.fetch('/v1/client.0123456789abcdef.js');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('a 429 on submit exposes Retry-After to cross-origin scripts', async () => {
    const res = await t.fetch('/v1/submit/frm_unknown', {
      method: 'POST',
      headers: { origin: 'https://www.example.org', accept: 'application/json', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After');
  });
});
