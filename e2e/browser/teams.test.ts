import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { seriousViolations } from '../../test/helpers/axe.js';
import { launchChromium } from '../../test/helpers/browser.js';
import { createAccount, createForm } from '../../test/helpers/factories.js';

// Teams (docs/teams.md) in a browser: the Members page, an invitation accepted by sign-up
// on a phone-sized screen, and the account switcher; every page passes axe-core.
const PASSWORD = 'correct horse battery';
const OWNER = `owner-${Date.now()}@example.com`;
const INVITEE = `invitee-${Date.now()}@example.com`;
let t: TestApp;
let browser: Browser;
let ownerPage: Page;
let phone: Page;

async function logIn(page: Page, email: string): Promise<void> {
  await page.goto(`${t.url}/dashboard/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/forms$/), page.click('button.primary')]);
}

/** Nothing wider than the screen: no sideways scrolling at 390 px. */
const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

beforeAll(async () => {
  t = await startTestApp({ baseUrlIsOwnAddress: true, env: { DASHBOARD_SIGNUP: 'invite' } });
  const owner = await createAccount(t.services, { email: OWNER, password: PASSWORD, planId: 'pro' });
  await createForm(t.services, owner.id, { name: 'Team form' });
  browser = await launchChromium();
  ownerPage = await (await browser.newContext()).newPage();
  phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await logIn(ownerPage, OWNER);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('members and invitations in a browser', () => {
  it('invites from the Members page, and the invitee signs up on a phone and joins', async () => {
    await ownerPage.goto(`${t.url}/dashboard/members`);
    expect(await seriousViolations(ownerPage)).toEqual([]);
    await ownerPage.fill('input[name="email"]', INVITEE);
    await ownerPage.selectOption('select[name="role"]', 'member');
    await Promise.all([ownerPage.waitForURL(/\/dashboard\/members$/), ownerPage.click('form[action="/dashboard/members/invitations"] button')]);
    const link = (await ownerPage.textContent('#invite-link'))!.trim();
    expect(link).toMatch(/\/dashboard\/invite\//);
    expect(await seriousViolations(ownerPage)).toEqual([]);

    await phone.goto(link);
    expect(await phone.textContent('h1')).toContain('Join an account');
    expect(await seriousViolations(phone)).toEqual([]);
    expect(await fitsWidth(phone)).toBe(true);
    await phone.fill('input[name="displayName"]', 'Invited Person');
    await phone.fill('input[name="password"]', PASSWORD);
    await Promise.all([phone.waitForURL(/\/dashboard\/forms$/), phone.click('form[action$="/signup"] button')]);
    expect(await phone.textContent('.who')).toContain('(member)');
    expect(await phone.textContent('main')).toContain('Team form');

    await phone.goto(`${t.url}/dashboard/members`);
    expect(await phone.textContent('main')).toContain(OWNER);
    expect(await seriousViolations(phone)).toEqual([]);
    expect(await fitsWidth(phone)).toBe(true);
    // A member has no invite form and no API keys link.
    expect(await phone.isVisible('form[action="/dashboard/members/invitations"]')).toBe(false);
    expect(await phone.isVisible('nav a[href="/dashboard/keys"]')).toBe(false);
  });

  it('switches between accounts from the header', async () => {
    const second = await createAccount(t.services, { email: `second-${Date.now()}@example.com`, password: PASSWORD });
    await createForm(t.services, second.id, { name: 'Second account form' });
    await t.services.members.add(second.id, { email: OWNER, role: 'viewer' });
    await ownerPage.goto(`${t.url}/dashboard/forms`);
    expect(await seriousViolations(ownerPage)).toEqual([]);
    await ownerPage.selectOption('#account-switcher', second.id);
    await Promise.all([ownerPage.waitForURL(/\/dashboard\/forms$/), ownerPage.click('form.switcher button')]);
    expect(await ownerPage.textContent('main')).toContain('Second account form');
    expect(await ownerPage.textContent('.who')).toContain('(viewer)');

    await logIn(phone, OWNER);
    expect(await seriousViolations(phone)).toEqual([]);
    expect(await fitsWidth(phone)).toBe(true);
  });
});
