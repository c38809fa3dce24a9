// `npx tsx scripts/take-screenshots.ts` (after `npm run build`): redraws the team inbox and a
// submission's page in docs/ at 1440 and 390 px. It runs the built product over a throwaway
// SQLite database with invented people (example.com / example.org addresses only), so the
// pictures show the pages as they are today and anyone can make them again.
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Cookie } from 'playwright-core';

// The compiled product, as `npm start` runs it; the types come from the sources it was built from.
const built = (path: string) => new URL(`../dist/src/${path}`, import.meta.url).href;
const { buildApp } = (await import(built('app.js'))) as typeof import('../src/app.js');
const { parseConfig } = (await import(built('platform/config.js'))) as typeof import('../src/platform/config.js');
const { createDatabase } = (await import(built('platform/db/database.js'))) as typeof import('../src/platform/db/database.js');
const { migrateToLatest } = (await import(built('platform/db/migrate.js'))) as typeof import('../src/platform/db/migrate.js');
const { insertSubmissionRows } = (await import(built('features/submit/submission.repository.js'))) as typeof import('../src/features/submit/submission.repository.js');
const { randomBase62 } = (await import(built('platform/lib/ids.js'))) as typeof import('../src/platform/lib/ids.js');
type NewSubmissionRow = import('../src/platform/db/schema.js').NewSubmissionRow;

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const PASSWORD = 'screenshots only, never a real password';
const OWNER = 'maria.lopez@example.com';
const MEMBER = 'sam.okafor@example.com';
// One zone for the server's cookie and the browser, so the pages are drawn once, in it.
const TIME_ZONE = 'Europe/Berlin';
const HOUR_MS = 3_600_000;
const MAX_PNG_BYTES = 300 * 1024;

interface Message {
  name: string;
  email: string;
  topic: string;
  message: string;
  hoursAgo: number;
  country: string;
}

const INBOX: Message[] = [
  { name: 'Lena Fischer', email: 'lena.fischer@example.org', topic: 'Order', message: 'My order FG-1042 arrived with a cracked lid. Could you send a replacement, or should I return it first?', hoursAgo: 2, country: 'DE' },
  { name: 'Tom Baker', email: 'tom.baker@example.com', topic: 'Billing', message: 'I was charged twice for the March invoice. Please refund the second payment.', hoursAgo: 5, country: 'GB' },
  { name: 'Aiko Tanaka', email: 'aiko.tanaka@example.org', topic: 'Question', message: 'Do you ship to Japan, and how long does delivery usually take?', hoursAgo: 9, country: 'JP' },
  { name: 'Carlos Mendes', email: 'carlos.mendes@example.com', topic: 'Bug', message: 'The sign-up page shows a blank screen on my phone after I press Continue.', hoursAgo: 26, country: 'BR' },
  { name: 'Priya Nair', email: 'priya.nair@example.org', topic: 'Partnership', message: 'We run a small design studio and would like to resell your templates. Who can I talk to?', hoursAgo: 31, country: 'IN' },
  { name: 'Jonas Berg', email: 'jonas.berg@example.com', topic: 'Order', message: 'Can I still change the delivery address of order FG-1038? It has not shipped yet.', hoursAgo: 50, country: 'SE' },
  { name: 'Emma Dubois', email: 'emma.dubois@example.org', topic: 'Billing', message: 'Could you add our VAT number FR00123456789 to last month’s invoice?', hoursAgo: 74, country: 'FR' },
  { name: 'Noah Williams', email: 'noah.williams@example.com', topic: 'Feedback', message: 'Just wanted to say the new checkout is much faster. Thanks!', hoursAgo: 98, country: 'US' },
];
const SPAM = [
  { message: 'Cheap followers and backlinks, visit https://spam.example.net now', hoursAgo: 7, reason: 'blocked_term' as const },
  { message: 'hello', hoursAgo: 40, reason: 'too_fast' as const },
];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'formgate-screenshots-'));
  const databaseUrl = `sqlite:${join(dir, 'formgate.db')}`;
  const handle = createDatabase(databaseUrl);
  let browser: Browser | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await migrateToLatest(handle);
    // BASE_URL is the address the browser uses: the dashboard checks a POST's origin against it.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    app = await buildApp({ config: parseConfig({ LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, BASE_URL: url, PORT: String(port) }), handle, logger: false });
    await app.listen({ port, host: '127.0.0.1' });
    const { formId, submissionId } = await seed(app.services);

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      // As the browser tests launch it (test/helpers/browser.ts): no sandbox, GPU or network chatter.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const cookies = await signIn(browser, url);
    const shots: Array<{ file: string; path: string; width: number; height: number; fullPage: boolean; until?: string }> = [
      // The inbox first: opening the submission marks it read, which the list would then show.
      { file: 'dashboard-inbox-1440.png', path: `/dashboard/forms/${formId}/submissions`, width: 1440, height: 900, fullPage: false },
      // The phone's list is a stack of cards: the page down to the third shows how they read.
      { file: 'dashboard-inbox-390.png', path: `/dashboard/forms/${formId}/submissions`, width: 390, height: 844, fullPage: true, until: 'table.inbox-list tbody tr:nth-child(3)' },
      { file: 'dashboard-submission-1440.png', path: `/dashboard/submissions/${submissionId}`, width: 1440, height: 900, fullPage: false },
      { file: 'dashboard-submission-390.png', path: `/dashboard/submissions/${submissionId}`, width: 390, height: 844, fullPage: true },
    ];
    for (const shot of shots) {
      const context = await browser.newContext({ viewport: { width: shot.width, height: shot.height }, deviceScaleFactor: 1, timezoneId: TIME_ZONE, colorScheme: 'light', locale: 'en-GB' });
      await context.addCookies(cookies);
      const page = await context.newPage();
      const res = await page.goto(`${url}${shot.path}`, { waitUntil: 'load' });
      if (res?.status() !== 200) throw new Error(`${shot.path} answered ${res?.status()}`);
      const file = join(DOCS, shot.file);
      const last = shot.until === undefined ? null : await page.locator(shot.until).boundingBox();
      if (shot.until !== undefined && !last) throw new Error(`${shot.path} shows no ${shot.until}`);
      const clip = last ? { clip: { x: 0, y: 0, width: shot.width, height: Math.ceil(last.y + last.height + 4) } } : {};
      await page.screenshot({ path: file, type: 'png', fullPage: shot.fullPage, ...clip });
      await context.close();
      const size = statSync(file).size;
      console.log(`wrote docs/${shot.file} (${Math.round(size / 1024)} KiB)`);
      if (size > MAX_PNG_BYTES) throw new Error(`docs/${shot.file} is ${size} bytes, more than ${MAX_PNG_BYTES}`);
    }
  } finally {
    await browser?.close();
    if (app) await app.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Services = import('../src/services.js').Services;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** The owner, a member, a form with an inbox in several states and some spam. */
async function seed(s: Services): Promise<{ formId: string; submissionId: string }> {
  const owner = await s.accounts.createAccount({ email: OWNER, displayName: 'Maria Lopez', planId: 'business', password: PASSWORD, emailConfirmed: true });
  const added = await s.members.add(owner.id, { email: MEMBER, role: 'member', password: PASSWORD });
  if (!('member' in added)) throw new Error('the member was not added');
  const memberId = added.member.userId;
  const form = await s.forms.createForm(owner.id, { name: 'Customer support' });
  const now = Date.now();
  const row = (payload: Record<string, string>, hoursAgo: number, country: string, spam?: NewSubmissionRow['spam_reason']): NewSubmissionRow => ({
    id: `sub_${randomBase62(16)}`,
    form_id: form.id,
    created_at: new Date(now - hoursAgo * HOUR_MS - 17 * 60_000).toISOString(),
    status: 'delivered',
    is_spam: spam ? 1 : 0,
    spam_reason: spam ?? null,
    payload: JSON.stringify(payload),
    ip: `203.0.113.${10 + Math.round(hoursAgo)}`,
    country,
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
    referer: 'https://www.example.com/contact',
  });
  const inbox = INBOX.map((m) => row({ name: m.name, email: m.email, topic: m.topic, message: m.message }, m.hoursAgo, m.country));
  const spam = SPAM.map((m) => row({ name: 'Promo', email: 'promo@spam.example.net', message: m.message }, m.hoursAgo, 'XX', m.reason));
  await s.handle.db.transaction().execute((trx) => insertSubmissionRows(trx, [...inbox, ...spam]));
  const [lena, tom, aiko, carlos, priya, jonas, emma, noah] = inbox.map((r) => r.id) as [string, string, string, string, string, string, string, string];

  // Read rows are the ones somebody opened; Lena's and Aiko's are still unread.
  await s.inbox.apply(owner.id, [carlos, priya, jonas, emma, noah, tom], { kind: 'read' });
  await s.inbox.apply(owner.id, [jonas, noah], { kind: 'done' });
  await s.inbox.apply(owner.id, [tom, carlos, emma], { kind: 'assign', memberId });
  await s.inbox.apply(owner.id, [priya], { kind: 'assign', memberId: owner.id });
  const tags: Array<[string, string[]]> = [['refund', [tom, lena]], ['billing', [tom, emma]], ['urgent', [tom, carlos]], ['bug', [carlos]], ['shipping', [aiko, jonas, lena]], ['sales', [priya]]];
  for (const [tag, ids] of tags) await s.inbox.apply(owner.id, ids, { kind: 'tag', tag });
  await s.inbox.setNotes(owner.id, tom, 'Checked the payment provider: two charges of €49 on 3 March. Refund of the second one started, reference RF-2231.\nTold Tom it takes 5–7 days.', memberId);
  await s.inbox.setNotes(owner.id, carlos, 'Reproduced on Android 14 with the small font setting.', memberId);
  return { formId: form.id, submissionId: tom };
}

/** Signs in through the log-in page, as a person does, and keeps the session and time zone cookies. */
async function signIn(browser: Browser, url: string): Promise<Cookie[]> {
  const context = await browser.newContext({ timezoneId: TIME_ZONE });
  const page = await context.newPage();
  await page.goto(`${url}/dashboard/login`);
  await page.fill('input[name=email]', OWNER);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/forms$/), page.click('button.primary')]);
  const cookies = await context.cookies();
  await context.close();
  if (!cookies.some((c) => c.name === 'fg_tz')) cookies.push({ name: 'fg_tz', value: TIME_ZONE, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: false, secure: false, sameSite: 'Lax' });
  return cookies;
}

await main();
