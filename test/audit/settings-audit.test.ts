import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

// The audit log of a form's settings as an owner makes them on the dashboard: a save lists only
// what changed, a recipient added reads as one, and every event names the form.
let sink: SmtpSink;
let t: AppUnderTest;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url, MAIL_FROM: 'formgate@example.com' } });
});
afterAll(async () => {
  await t?.close();
  await sink?.close();
});

/** What the settings form would post as the page shows it: every field's value, checked boxes only. */
function settingsFields(html: string): Array<[string, string]> {
  const form = html.slice(html.indexOf('class="settings-form"'), html.indexOf('</form>', html.indexOf('class="settings-form"')));
  const decode = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const fields: Array<[string, string]> = [];
  for (const [tag] of form.matchAll(/<input\b[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(tag)?.[1];
    if (!name || name === '_csrf') continue;
    if (/type="checkbox"/.test(tag) && !/\bchecked\b/.test(tag)) continue;
    fields.push([name, decode(/value="([^"]*)"/.exec(tag)?.[1] ?? '')]);
  }
  for (const [, name, body] of form.matchAll(/<select name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    fields.push([name!, /<option value="([^"]*)"\s*selected/.exec(body!)?.[1] ?? /<option value="([^"]*)"/.exec(body!)![1]!]);
  }
  for (const [, name, body] of form.matchAll(/<textarea name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) fields.push([name!, decode(body!)]);
  return fields;
}

describe('the audit log of settings made on the dashboard', () => {
  it('a first save as shown lists nothing; a change lists only itself; a recipient added reads as such; targets name the form', async () => {
    const email = `audit-${randomBase62(6).toLowerCase()}@example.com`;
    const client = new DashboardClient(t);
    await client.signUp(email);
    const accountId = (await t.services.accounts.getAccountByIdOrEmail(email)).id;
    await client.get('/dashboard/forms');
    const created = await client.post('/dashboard/forms', { name: 'Press enquiries' });
    const formId = /\/dashboard\/forms\/([^/]+)\/settings/.exec(created.res.headers.get('location')!)![1]!;
    const updates = async () => (await t.services.audit.listEvents(accountId, { action: 'form.updated' })).map((e) => e.details);

    const page = await client.get(`/dashboard/forms/${formId}/settings`);
    const fields = settingsFields(page.html);
    expect(fields.map(([name]) => name)).toEqual(expect.arrayContaining(['name', 'botCheck', 'maxFileBytes', 'requiredFields', 'blockedTerms']));
    expect((await client.postPairs(`/dashboard/forms/${formId}/settings`, fields)).res.status).toBe(200);
    expect(await updates()).toEqual([]);

    const renamed = fields.map(([name, value]): [string, string] => [name, name === 'name' ? 'Press' : name === 'maxLinks' ? '3' : value]);
    await client.get(`/dashboard/forms/${formId}/settings`);
    expect((await client.postPairs(`/dashboard/forms/${formId}/settings`, renamed)).res.status).toBe(200);
    expect(await updates()).toEqual([{ changed: ['maxLinks', 'name'] }]);

    // The notification section as shown, with one address more.
    await client.get(`/dashboard/forms/${formId}/settings`);
    const added = await client.post(`/dashboard/forms/${formId}/notifications`, { recipients: `${email}\nteam@example.net`, notifyMode: 'each' });
    expect(added.res.status).toBe(303);
    expect(await updates()).toHaveLength(1);
    const recipientEvents = await t.services.audit.listEvents(accountId, { action: 'notification.recipient_added' });
    expect(recipientEvents.map((e) => [e.details, e.target?.label])).toEqual([
      [{ address: 'team@example.net' }, 'Press'],
      [{ address: email }, 'Press enquiries'],
    ]);

    const log = await client.get('/dashboard/audit');
    expect(log.res.status).toBe(200);
    expect(log.html).toContain('team@example.net');
    expect(log.html).not.toMatch(/changed: notifyMode/);
    expect(log.html).toContain('Press enquiries');
  });
});
