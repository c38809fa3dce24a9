import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('the icon', () => {
  it('answers /favicon.ico with an SVG that the pages name', async () => {
    const icon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.body).toMatch(/^<svg /);
    const login = await t.app.inject({ method: 'GET', url: '/dashboard/login' });
    expect(login.body).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml">');
  });
});
