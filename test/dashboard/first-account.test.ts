import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';

// DEFAULT_PLAN is left at free, where hooks are refused: the first account must not be.
let t: AppUnderTest;
let admin: DashboardClient;
beforeAll(async () => {
  t = await buildTestApp();
  admin = new DashboardClient(t);
});
afterAll(async () => t?.close());

/** The text of the paragraph with this id, as a reader sees it. */
const paragraphText = (html: string, id: string) =>
  new RegExp(`<p id="${id}">([\\s\\S]*?)</p>`).exec(html)?.[1]?.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ') ?? `no #${id}`;

describe('the first account of an instance', () => {
  it('the first dashboard sign-up is the admin, on business; the next one gets DEFAULT_PLAN', async () => {
    await admin.signUp('first@example.com');
    expect(await t.services.accounts.getAccountByIdOrEmail('first@example.com')).toMatchObject({ planId: 'business' });
    expect((await t.services.accounts.findUserByEmail('first@example.com'))!.isAdmin).toBe(true);

    await new DashboardClient(t).signUp('second@example.com');
    expect(await t.services.accounts.getAccountByIdOrEmail('second@example.com')).toMatchObject({ planId: 'free' });
    expect((await t.services.accounts.findUserByEmail('second@example.com'))!.isAdmin).toBe(false);
  });

  it("the admin's hooks page offers hooks, where the next account's says they need Pro", async () => {
    const { res, html } = await admin.get('/dashboard/hooks');
    expect(res.status).toBe(200);
    expect(html).not.toContain('id="plan-note"');
    const next = new DashboardClient(t);
    await next.signUp('third@example.com');
    expect((await next.get('/dashboard/hooks')).html).toContain('id="plan-note"');
  });

  it('the admin page says what plans gate and what new accounts get', async () => {
    const { res, html } = await admin.get('/dashboard/admin');
    expect(res.status).toBe(200);
    expect(paragraphText(html, 'plan-rules')).toBe(
      "A plan gates one thing: REST hooks, which need pro or business. Everything else works on every plan. New accounts get free (DEFAULT_PLAN); the instance's first account, created without a plan, gets business.",
    );
  });
});
