import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { stringifyConfigFile } from '../../src/features/config-as-code/config-file.js';
import { formatPlan, planView } from '../../src/features/config-as-code/config-plan-text.js';
import type { ConfigFile } from '../../src/features/config-as-code/config-file.schema.js';
import type { ConfigSource } from '../../src/features/config-as-code/config.service.js';
import { RemoteConfigTarget } from '../../src/features/config-as-code/remote-target.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { createAccount } from '../helpers/factories.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const environment = { CONTACT_ACCESS_KEY: 'sesame', SLACK_URL: 'https://hooks.slack.com/services/T0/B0/secret' };
const noPrune = { prune: false, writeSecrets: false };

function fileFor(account: string): ConfigFile {
  return {
    account,
    forms: [
      {
        key: 'contact',
        name: 'Contact',
        settings: { successUrl: 'https://example.com/thanks', accessKey: '${CONTACT_ACCESS_KEY}', blockedTerms: ['casino'], notifyMode: 'daily' },
        recipients: ['team@example.com'],
        integrations: [{ kind: 'slack', name: 'Team chat', url: '${SLACK_URL}' }],
        hooks: [{ targetUrl: 'https://hooks.example.com/contact' }],
      },
      { key: 'newsletter', name: 'Newsletter', settings: { isActive: false, requiredFields: ['email'] } },
    ],
  };
}

const source = (file: ConfigFile, format: 'json' | 'yaml' = 'json', env: Record<string, string> = environment): ConfigSource => ({
  text: stringifyConfigFile(file, format),
  format,
  environment: env,
});

const plan = (file: ConfigFile | ConfigSource, options = noPrune) =>
  t.services.configAsCode.plan('text' in file ? file : source(file), t.services.localConfigTarget, options).then((r) => r.plan);
const apply = (file: ConfigFile | ConfigSource, options = noPrune) => t.services.configAsCode.apply('text' in file ? file : source(file), t.services.localConfigTarget, options);
const exported = async (account: string) => (await t.services.configAsCode.export(t.services.localConfigTarget, account)).file;

async function rowCounts(accountId: string) {
  const db = t.handle.db;
  const count = async (query: Promise<{ n: string | number | bigint }>) => Number((await query).n);
  return {
    forms: await count(db.selectFrom('forms').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()),
    integrations: await count(
      db.selectFrom('integrations').innerJoin('forms', 'forms.id', 'integrations.form_id').select((eb) => eb.fn.countAll().as('n')).where('forms.account_id', '=', accountId).executeTakeFirstOrThrow(),
    ),
    hooks: await count(db.selectFrom('hooks').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()),
    audit: await count(db.selectFrom('audit_events').select((eb) => eb.fn.countAll().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()),
  };
}

const auditOf = (accountId: string) =>
  t.handle.db.selectFrom('audit_events').select(['action', 'target_id', 'details']).where('account_id', '=', accountId).orderBy('id').execute();

describe(`configuration as code on this machine, on ${testDialect}`, () => {
  it('creates what the file names, then plans no change; applying again writes nothing', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const first = await apply(fileFor(owner.email));
    expect(first.forms.map((f) => [f.key, f.action])).toEqual([['contact', 'create'], ['newsletter', 'create']]);
    const forms = await t.services.forms.listForms(owner.id);
    const contact = forms.find((f) => f.key === 'contact')!;
    expect(contact).toMatchObject({ name: 'Contact', successUrl: 'https://example.com/thanks', accessKey: 'sesame', notifyMode: 'daily', blockedTerms: ['casino'] });
    expect(forms.find((f) => f.key === 'newsletter')).toMatchObject({ isActive: false, requiredFields: ['email'] });
    expect((await t.services.notifications.listRecipients(contact.id)).map((r) => [r.address, r.state])).toEqual([['team@example.com', 'verified']]);
    expect((await t.services.integrations.listIntegrationTargets(contact.id)).map((i) => i.target.url)).toEqual([environment.SLACK_URL]);
    expect((await t.services.hooks.listHooks(owner.id)).map((h) => [h.formId, h.targetUrl])).toEqual([[contact.id, 'https://hooks.example.com/contact']]);

    const before = await rowCounts(owner.id);
    expect((await plan(fileFor(owner.email))).changes).toBe(0);
    const again = await apply(fileFor(owner.email));
    expect(again.changes).toBe(0);
    expect(await rowCounts(owner.id)).toEqual(before);
    // The file's key still names the same form.
    expect((await t.services.forms.listForms(owner.id)).map((f) => f.id).sort()).toEqual(forms.map((f) => f.id).sort());
  });

  it('export of an account applied to it changes nothing, forms without a key included', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const made = await t.services.forms.createForm(owner.id, { name: 'Made on the dashboard', successUrl: 'https://example.com/ok', accessKey: 'k' });
    await t.services.notifications.setRecipients(made.id, ['a@example.com'], { verified: true });
    await t.services.integrations.addIntegration(made.id, { kind: 'telegram', token: '123:abc', chatId: '-100' });
    await t.services.hooks.createHook(owner.id, { formId: made.id, targetUrl: 'https://hooks.example.com/made' });
    await apply(fileFor(owner.id));
    const result = await t.services.configAsCode.export(t.services.localConfigTarget, owner.email);
    expect(result.file.forms.map((f) => f.key)).toEqual(['contact', made.id, 'newsletter'].sort());
    expect(result.notes).toEqual(expect.arrayContaining([expect.stringContaining(`form ${made.id}: accessKey is set and left out`)]));
    expect(JSON.stringify(result.file)).not.toContain('sesame');
    expect(JSON.stringify(result.file)).not.toContain('123:abc');
    const before = await rowCounts(owner.id);
    const again = await apply(result.file);
    expect(again.changes).toBe(0);
    expect(again.forms.every((f) => f.action === 'unchanged')).toBe(true);
    expect(await rowCounts(owner.id)).toEqual(before);
  });

  it('a file changing one setting changes only that, and the audit log says which', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    await apply(fileFor(owner.email));
    const contact = (await t.services.forms.listForms(owner.id)).find((f) => f.key === 'contact')!;
    const before = await auditOf(owner.id);
    const changed = fileFor(owner.email);
    changed.forms[0]!.settings!.successUrl = 'https://example.com/merci';
    const shown = await plan(changed);
    expect(shown.changes).toBe(1);
    expect(shown.forms.map((f) => f.action)).toEqual(['update', 'unchanged']);
    expect(shown.forms[0]!.settings).toEqual([{ name: 'successUrl', from: 'https://example.com/thanks', to: 'https://example.com/merci' }]);
    await apply(changed);
    const after = await t.services.forms.getForm(contact.id);
    expect(after).toEqual({ ...contact, successUrl: 'https://example.com/merci', updatedAt: after.updatedAt, revision: contact.revision + 1 });
    const added = (await auditOf(owner.id)).slice(before.length);
    expect(added.map((e) => [e.action, e.target_id, JSON.parse(e.details!)])).toEqual([['form.updated', contact.id, { changed: ['successUrl'], targetLabel: 'Contact' }]]);
  });

  it('a secret that changes is written, and shown only as changed', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    await apply(fileFor(owner.email));
    const rotated = source(fileFor(owner.email), 'json', { ...environment, CONTACT_ACCESS_KEY: 'open-sesame', SLACK_URL: 'https://hooks.slack.com/services/T0/B0/new' });
    const shown = await plan(rotated);
    expect(shown.forms[0]).toMatchObject({ secrets: [{ name: 'accessKey', change: 'changed' }], integrations: [{ action: 'update', reason: 'url: secret changed' }] });
    expect(JSON.stringify(shown.forms[0]!.write)).toContain('open-sesame');
    // What is printed, as text or JSON, holds neither value.
    for (const printed of [JSON.stringify(planView(shown)), formatPlan(planView(shown))]) {
      expect(printed).not.toContain('open-sesame');
      expect(printed).not.toContain('B0/new');
    }
    const contact = (await t.services.forms.listForms(owner.id)).find((f) => f.key === 'contact')!;
    const [slack] = await t.services.integrations.listIntegrations(contact.id);
    await apply(rotated);
    expect((await t.services.forms.getForm(contact.id)).accessKey).toBe('open-sesame');
    // Changed in place: the integration keeps its ID.
    expect((await t.services.integrations.listIntegrationTargets(contact.id)).map((i) => [i.integration.id, i.target.url])).toEqual([[slack!.id, 'https://hooks.slack.com/services/T0/B0/new']]);
    expect((await plan(rotated)).changes).toBe(0);
  });

  it('leaves forms the file dropped alone; --prune deletes only those, after plan showed them', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    await apply(fileFor(owner.email));
    const kept = await t.services.forms.createForm(owner.id, { name: 'Not in the file' });
    const shorter = fileFor(owner.email);
    shorter.forms.pop();
    const newsletter = (await t.services.forms.listForms(owner.id)).find((f) => f.key === 'newsletter')!;

    const withoutPrune = await plan(shorter);
    expect(withoutPrune.changes).toBe(0);
    expect(withoutPrune.forms.filter((f) => f.action === 'untouched').map((f) => f.id).sort()).toEqual([kept.id, newsletter.id].sort());
    await apply(shorter);
    expect((await t.services.forms.listForms(owner.id)).length).toBe(3);

    const withPrune = await plan(shorter, { prune: true, writeSecrets: false });
    expect(withPrune.forms.filter((f) => f.action === 'delete').map((f) => f.id).sort()).toEqual([kept.id, newsletter.id].sort());
    await apply(shorter, { prune: true, writeSecrets: false });
    expect((await t.services.forms.listForms(owner.id)).map((f) => f.key)).toEqual(['contact']);
  });

  it('a missing variable stops before anything is written', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const before = await rowCounts(owner.id);
    await expect(apply(source(fileFor(owner.email), 'json', { SLACK_URL: environment.SLACK_URL }))).rejects.toMatchObject({
      code: 'validation_failed',
      fieldErrors: { 'forms.0.settings.accessKey': 'the environment variable CONTACT_ACCESS_KEY is not set' },
    });
    expect(await rowCounts(owner.id)).toEqual(before);
    expect(before.forms).toBe(0);
  });

  it('is one transaction: a change refused half-way leaves everything as it was', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const broken = fileFor(owner.email);
    // The second form's integration is refused by the integration service, after the first form was written.
    broken.forms[1]!.integrations = [{ kind: 'discord', name: 'Local', url: '${LOCAL_URL}' }];
    const before = await rowCounts(owner.id);
    await expect(apply(source(broken, 'json', { ...environment, LOCAL_URL: 'https://127.0.0.1/hook' }))).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { url: expect.any(String) } });
    expect(await rowCounts(owner.id)).toEqual(before);
  });

  it('the same file in YAML and in JSON makes the same account', async () => {
    const [a, b] = [await createAccount(t.services, { planId: 'pro' }), await createAccount(t.services, { planId: 'pro' })];
    await apply(source(fileFor(a.email), 'yaml'));
    await apply(source(fileFor(b.email), 'json'));
    const [ea, eb] = [await exported(a.email), await exported(b.email)];
    expect(ea.forms).toEqual(eb.forms);
    expect(ea.forms.length).toBe(2);
  });
});

describe('the configuration file\'s JSON Schema', () => {
  it('is served to anyone at /v1/config.schema.json, with the instance\'s address as its $id', async () => {
    const res = await t.fetch('/v1/config.schema.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/schema+json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const schema = await res.json();
    expect(schema).toMatchObject({ $id: `${t.services.config.baseUrl}/v1/config.schema.json`, type: 'object', required: ['forms'] });
    expect(Object.keys(schema.properties.forms.items.properties)).toEqual(['key', 'name', 'settings', 'recipients', 'integrations', 'hooks']);
  });
});

describe(`configuration as code with service integrations, on ${testDialect}`, () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = JSON.stringify({
    type: 'service_account',
    project_id: 'formgate-test',
    private_key_id: 'abc123',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'rows@formgate-test.iam.gserviceaccount.com',
    client_id: '1234567890',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  const serviceEnv = { ...environment, SHEETS_KEY: keyFile, MAILCHIMP_KEY: `${'0123456789abcdef'.repeat(2)}-us21` };
  const spreadsheet = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';

  function serviceFile(account: string, sheet = 'Leads'): ConfigFile {
    return {
      account,
      forms: [
        {
          key: 'signup',
          name: 'Sign-up',
          integrations: [
            { kind: 'sheets', name: 'Rows', spreadsheet, sheet, key: '${SHEETS_KEY}' },
            { kind: 'mailchimp', name: 'List', audience: 'a1b2c3d4e5', consentField: 'consent', apiKey: '${MAILCHIMP_KEY}' },
          ],
        },
      ],
    };
  }
  const serviceSource = (file: ConfigFile) => source(file, 'json', serviceEnv);
  const integrationsOf = async (accountId: string) => {
    const form = (await t.services.forms.listForms(accountId)).find((f) => f.key === 'signup')!;
    // Both are made in the same instant: by kind, so that the order is the same on every database.
    return (await t.services.integrations.listIntegrations(form.id)).sort((a, b) => a.kind.localeCompare(b.kind));
  };

  it('creates sheets and mailchimp integrations from their fields; a second apply changes nothing', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const first = await apply(serviceSource(serviceFile(owner.email)));
    expect(first.forms[0]!.integrations.map((i) => [i.action, i.kind, i.name])).toEqual([
      ['add', 'sheets', 'Rows'],
      ['add', 'mailchimp', 'List'],
    ]);
    const made = await integrationsOf(owner.id);
    expect(made.map((i) => [i.kind, i.settings, i.secrets])).toEqual([
      ['mailchimp', { audience: 'a1b2c3d4e5', dataCenter: 'us21', consentField: 'consent' }, { apiKey: 'set' }],
      ['sheets', { spreadsheet, sheet: 'Leads', serviceAccount: 'rows@formgate-test.iam.gserviceaccount.com' }, { key: 'set' }],
    ]);
    const before = await rowCounts(owner.id);
    expect((await plan(serviceSource(serviceFile(owner.email)))).changes).toBe(0);
    expect((await apply(serviceSource(serviceFile(owner.email)))).changes).toBe(0);
    expect(await rowCounts(owner.id)).toEqual(before);
  });

  it('export writes their settings, never their secrets, and applying it plans no change', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    await apply(serviceSource(serviceFile(owner.email)));
    const result = await t.services.configAsCode.export(t.services.localConfigTarget, owner.email);
    expect(result.file.forms[0]!.integrations).toHaveLength(2);
    expect(result.file.forms[0]!.integrations).toEqual(
      expect.arrayContaining([
        { kind: 'sheets', name: 'Rows', enabled: true, spreadsheet, sheet: 'Leads' },
        { kind: 'mailchimp', name: 'List', enabled: true, audience: 'a1b2c3d4e5', consentField: 'consent' },
      ]),
    );
    expect(result.notes).toEqual(expect.arrayContaining([expect.stringContaining('the sheets integration "Rows" keeps its secrets; add "key"')]));
    expect(JSON.stringify(result.file)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(result.file)).not.toContain(serviceEnv.MAILCHIMP_KEY);
    const shown = await plan(source(result.file, 'yaml', serviceEnv));
    expect(shown.changes).toBe(0);
  });

  it('a changed setting updates the integration in place and keeps its ID and secret', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    await apply(serviceSource(serviceFile(owner.email)));
    const [mailchimp, sheets] = await integrationsOf(owner.id);
    const shown = await plan(serviceSource(serviceFile(owner.email, 'Archive')));
    expect(shown.forms[0]!.integrations.map((i) => [i.action, i.kind, i.id, i.reason])).toEqual([['update', 'sheets', sheets!.id, 'sheet "Leads" → "Archive"']]);
    await apply(serviceSource(serviceFile(owner.email, 'Archive')));
    const after = await integrationsOf(owner.id);
    expect(after.map((i) => [i.id, i.kind, i.settings.sheet ?? null])).toEqual([
      [mailchimp!.id, 'mailchimp', null],
      [sheets!.id, 'sheets', 'Archive'],
    ]);
    const stored = (await t.services.integrations.listIntegrationTargets(sheets!.formId)).find((i) => i.integration.id === sheets!.id)!;
    expect(stored.secrets.key).toMatchObject({ client_email: 'rows@formgate-test.iam.gserviceaccount.com' });
    expect((await plan(serviceSource(serviceFile(owner.email, 'Archive')))).changes).toBe(0);
  });

  it('a service secret written inline is refused with its place in the file', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const file = serviceFile(owner.email);
    (file.forms[0]!.integrations![1] as Record<string, unknown>).apiKey = serviceEnv.MAILCHIMP_KEY;
    await expect(plan(serviceSource(file))).rejects.toMatchObject({ code: 'validation_failed', fieldErrors: { 'forms.0.integrations.1.apiKey': expect.stringContaining('${VARIABLE}') } });
  });

  it('through the API: creates them, plans no change again, and updates a setting in place', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const { apiKey } = await t.services.apiKeys.createApiKey(owner.id, 'config', 'manage');
    const remote = new RemoteConfigTarget(t.config.baseUrl, apiKey, t.fetch as typeof fetch);
    const file = (sheet: string) => ({ ...serviceFile(owner.email, sheet), account: undefined });
    const first = await t.services.configAsCode.apply(serviceSource(file('Leads')), remote, noPrune);
    expect(first.forms[0]!.integrations.map((i) => i.action)).toEqual(['add', 'add']);
    const [mailchimp, sheets] = await integrationsOf(owner.id);
    expect(sheets!.settings).toMatchObject({ spreadsheet, sheet: 'Leads' });
    const again = (await t.services.configAsCode.plan(serviceSource(file('Leads')), remote, noPrune)).plan;
    expect(again.changes).toBe(0);
    await t.services.configAsCode.apply(serviceSource(file('Archive')), remote, noPrune);
    const after = await integrationsOf(owner.id);
    expect(after.map((i) => [i.id, i.settings.sheet ?? null, i.secrets])).toEqual([
      [mailchimp!.id, null, { apiKey: 'set' }],
      [sheets!.id, 'Archive', { key: 'set' }],
    ]);
  });
});
