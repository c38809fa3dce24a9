import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED, redactedUrl } from '../../src/platform/http/request-log.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { unsubscribeToken } from '../../src/features/notifications/confirmation.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createAccount, createOwner } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';
import { PNG, multipart } from '../files/fixtures.js';

const PASSWORD = 'correct horse battery';
const BASE_URL = 'https://forms.example.com';

/** Every line the server logged, as written. */
const logText: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logText.push(chunk.toString('utf8'));
    done();
  },
});
const routes: Array<{ url: string; querystring: string[] }> = [];

let sink: SmtpSink;
let t: AppUnderTest;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({
    env: { SMTP_URL: sink.url, BASE_URL },
    loggerInstance: pino({ level: 'info' }, capture),
    onRoute: (route) => {
      const schema = (route as { schema?: { querystring?: { properties?: Record<string, unknown> } } }).schema;
      routes.push({ url: route.url, querystring: Object.keys(schema?.querystring?.properties ?? {}) });
    },
  });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

const address = (tag: string) => `${tag}-${randomBase62(8).toLowerCase()}@example.net`;
/** The link to `path` in whichever email to `to` carries one (the owner also gets the email change's notice). */
const findLink = (to: string, path: string) => {
  const pattern = new RegExp(`${BASE_URL}(/${path}/[A-Za-z0-9_-]+)`);
  return sink.to(to).map((message) => pattern.exec(message.parsed.text ?? '')).find((match) => match !== null)?.[1];
};
const linkIn = (to: string, path: string) => {
  const link = findLink(to, path);
  if (!link) throw new Error(`no email to ${to} links to /${path}`);
  return link;
};
const lastSegment = (path: string) => path.split('/').pop()!;

/** The URL the "incoming request" line of the request with this ID shows. */
function loggedUrl(requestId: string): string {
  const line = logText
    .flatMap((chunk) => chunk.split('\n'))
    .filter(Boolean)
    .map((text) => JSON.parse(text) as { requestId?: string; msg: string; req?: { url: string } })
    .find((entry) => entry.requestId === requestId && entry.msg === 'incoming request');
  if (!line?.req) throw new Error(`no incoming request line for ${requestId}`);
  return line.req.url;
}

async function visit(path: string, method = 'GET'): Promise<{ status: number; url: string }> {
  const res = await t.fetch(`${path}`, { method, redirect: 'manual' });
  await res.arrayBuffer();
  return { status: res.status, url: loggedUrl(res.headers.get('x-request-id')!) };
}

describe(`the request log on ${testDialect}`, () => {
  it('shows every secret of a link as [redacted]: tokens in the path, signed query strings, however spelled', async () => {
    const secrets: string[] = [];
    const account = await createAccount(t.services, { email: address('owner'), password: PASSWORD, planId: 'pro' });

    // The secrets of real links, made the way the product makes them.
    const invitation = new URL((await t.services.members.invite(account.id, { email: address('invited'), role: 'viewer' })).url).pathname;
    await t.services.passwordResets.requestReset(account.email);
    const newEmail = address('new');
    await t.services.emailChanges.requestChange(account.id, newEmail, { password: PASSWORD, signedOnAt: null });
    const owner = await createOwner(t.services, { form: { files: 'store' } });
    const recipient = address('recipient');
    await t.services.notifications.setRecipients(owner.form.id, [recipient], { verified: false, accountId: owner.account.id });
    await waitFor(
      () => [findLink(account.email, 'dashboard/reset-password'), findLink(newEmail, 'dashboard/confirm-email'), findLink(recipient, 'dashboard/verify-email')].every(Boolean),
      15_000,
      'the three emails with links',
    );
    const reset = linkIn(account.email, 'dashboard/reset-password');
    const confirm = linkIn(newEmail, 'dashboard/confirm-email');
    const verify = linkIn(recipient, 'dashboard/verify-email');
    const unsubscribe = unsubscribeToken(await t.services.instanceSecrets.getSecret('unsubscribe'), address('submitter'));
    const uploaded = await submit(t, owner.form.id, { multipart: multipart({ message: 'hi' }, [{ field: 'file', name: 'a.png', content: PNG }]) }, JSON_ACCEPT);
    const { submissionId } = (await uploaded.json()) as { submissionId: string };
    const file = await t.handle.db.selectFrom('files').select('id').where('submission_id', '=', submissionId).executeTakeFirstOrThrow();
    const fileLink = new URL((await t.services.files.linker())(file.id));
    const [oidcCode, oidcState] = [randomBase62(32), randomBase62(32)];
    secrets.push(...[invitation, reset, confirm, verify].map(lastSegment), ...unsubscribe.split('.'), fileLink.searchParams.get('signature')!, oidcCode, oidcState);

    const token = lastSegment(invitation);
    // The status shows the link is live (undefined: whatever the answer to that spelling is).
    const cases: Array<[path: string, method: string, status: number | undefined, logged: string]> = [
      [invitation, 'GET', 200, `/dashboard/invite/${REDACTED}`],
      // Refused without the page's CSRF token, and logged all the same.
      [`${invitation}/accept`, 'POST', 403, `/dashboard/invite/${REDACTED}/accept`],
      // Other spellings of the same address, and an address no page has, are logged too.
      [`/dashboard/%69nvite/${token}`, 'GET', undefined, `/dashboard/invite/${REDACTED}`],
      [`/dashboard//invite/${token}/`, 'GET', undefined, `/dashboard/invite/${REDACTED}`],
      [`/dashboard/invite/${token}/nothing-here?again=${token}`, 'GET', undefined, `/dashboard/invite/${REDACTED}/nothing-here?${REDACTED}`],
      [reset, 'GET', 200, `/dashboard/reset-password/${REDACTED}`],
      [confirm, 'GET', 200, `/dashboard/confirm-email/${REDACTED}`],
      [verify, 'GET', 200, `/dashboard/verify-email/${REDACTED}`],
      [`/v1/unsubscribe/${unsubscribe}`, 'GET', 200, `/v1/unsubscribe/${REDACTED}`],
      [`/v1/unsubscribe/${unsubscribe}`, 'POST', 200, `/v1/unsubscribe/${REDACTED}`],
      [`${fileLink.pathname}${fileLink.search}`, 'GET', 200, `/v1/files/${file.id}?${REDACTED}`],
      // Single sign-on is off here (404), and its callback's code and state are still hidden.
      [`/dashboard/auth/oidc/callback?code=${oidcCode}&state=${oidcState}`, 'GET', 404, `/dashboard/auth/oidc/callback?${REDACTED}`],
    ];
    for (const [path, method, status, logged] of cases) {
      const seen = await visit(path, method);
      expect({ path, method, ...seen }).toEqual({ path, method, status: status ?? seen.status, url: logged });
    }

    const everything = logText.join('');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).toContain(REDACTED);
    // Everything else is logged as sent.
    expect((await visit('/healthz?probe=1')).url).toBe('/healthz?probe=1');
    expect((await visit(`/dashboard/files/${file.id}`)).url).toBe(`/dashboard/files/${file.id}`);
  });

  it("covers every route whose path takes a token or whose query string takes a link's signature", () => {
    const tokenRoutes = routes.filter((r) => r.url.includes(':token'));
    const signedRoutes = routes.filter((r) => r.querystring.includes('signature'));
    expect(tokenRoutes.length).toBeGreaterThanOrEqual(5);
    expect(signedRoutes.length).toBeGreaterThanOrEqual(1);
    for (const route of tokenRoutes) {
      const url = route.url.replace(':token', 'the-secret').replace(/:\w+/g, 'x');
      expect(redactedUrl(url), route.url).not.toContain('the-secret');
    }
    for (const route of signedRoutes) {
      const url = `${route.url.replace(/:\w+/g, 'x')}?expires=1&signature=the-secret`;
      expect(redactedUrl(url), route.url).not.toContain('the-secret');
    }
  });
});
