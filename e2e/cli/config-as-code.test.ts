import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { createAccount } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runToExit } from '../../test/helpers/server-process.js';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'formgate-config-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

const secrets = { CONTACT_ACCESS_KEY: 'sesame', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/secret' };
const formgate = (args: string[], env: Record<string, string> = {}) => runCli(args, { DATABASE_URL: t.database.url, ...secrets, ...env });

const fileFor = (account: string) => ({
  $schema: 'https://forms.example.com/v1/config.schema.json',
  account,
  forms: [
    {
      key: 'contact',
      name: 'Contact',
      settings: { successUrl: 'https://example.com/thanks', allowedOrigins: ['example.com'], botCheck: 'altcha', accessKey: '${CONTACT_ACCESS_KEY}' },
      recipients: ['team@example.com'],
      integrations: [{ kind: 'slack', name: 'Team chat', url: '${SLACK_WEBHOOK_URL}' }],
      hooks: [{ targetUrl: 'https://crm.example.com/formgate' }],
    },
    { key: 'newsletter', name: 'Newsletter', settings: { requiredFields: ['email'] } },
  ],
});

const YAML_FOR = (account: string) => `account: ${account}
forms:
  - key: contact
    name: Contact
    settings:
      successUrl: https://example.com/thanks
      allowedOrigins: [example.com]
      botCheck: altcha
      accessKey: "\${CONTACT_ACCESS_KEY}"
    recipients: [team@example.com]
    integrations:
      - kind: slack
        name: Team chat
        url: "\${SLACK_WEBHOOK_URL}"
    hooks:
      - targetUrl: https://crm.example.com/formgate
  - key: newsletter
    name: Newsletter
    settings:
      requiredFields: [email]
`;

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

async function exportForms(account: string): Promise<unknown[]> {
  const result = await formgate(['export', account]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout).forms;
}

const formCount = async (accountId: string) => (await t.services.forms.listForms(accountId)).length;

describe('formgate plan, apply and export', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('plan exits 2 with a diff, apply makes it, then plan exits 0; applying twice is a no-op', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const file = write('plain.json', fileFor(owner.email));
    const planned = await formgate(['plan', file]);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('+ form contact "Contact": create');
    expect(planned.stdout).toContain('accessKey: secret set');
    expect(planned.stdout).not.toContain('sesame');
    expect(planned.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete');
    expect(await formCount(owner.id)).toBe(0);

    const applied = await formgate(['apply', file]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied.');
    const ids = (await t.services.forms.listForms(owner.id)).map((f) => f.id).sort();
    expect(ids).toHaveLength(2);

    const again = await formgate(['plan', file]);
    expect([again.code, again.stdout.trim().split('\n').at(-1)]).toEqual([0, 'No changes.']);
    const second = await formgate(['apply', file, '--json']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ changes: 0 });
    expect((await t.services.forms.listForms(owner.id)).map((f) => f.id).sort()).toEqual(ids);
  });

  it('export, then apply of the export on the same account, plans no change (JSON and YAML)', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    expect((await formgate(['apply', write('for-export.json', fileFor(owner.email))])).code).toBe(0);
    for (const out of ['exported.json', 'exported.yaml']) {
      const path = join(dir, out);
      const exported = await formgate(['export', owner.email, '--out', path]);
      expect(exported.code).toBe(0);
      expect(exported.stderr).toContain('accessKey is set and left out');
      expect(readFileSync(path, 'utf8')).not.toContain('sesame');
      const planned = await formgate(['plan', path]);
      expect([planned.code, planned.stdout.trim().split('\n').at(-1)]).toEqual([0, 'No changes.']);
    }
  });

  it('a file changing one setting changes only that, and the audit log names it, with the CLI as actor', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const file = fileFor(owner.email);
    expect((await formgate(['apply', write('one-setting.json', file)])).code).toBe(0);
    file.forms[1]!.settings = { requiredFields: ['email', 'name'] };
    const path = write('one-setting.json', file);
    const planned = await formgate(['plan', path]);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('~ form newsletter');
    expect(planned.stdout).toContain('requiredFields: ["email"] → ["email","name"]');
    expect(planned.stdout).toMatch(/form contact .*: no change/);
    expect((await formgate(['apply', path])).code).toBe(0);
    const events = await formgate(['audit', owner.id, '--limit', '1', '--json']);
    expect(JSON.parse(events.stdout).events[0]).toMatchObject({ action: 'form.updated', actor: { type: 'cli' }, details: { changed: ['requiredFields'] } });
  });

  it('--prune deletes only the forms the file dropped, after plan showed them', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const file = fileFor(owner.email);
    expect((await formgate(['apply', write('prune.json', file)])).code).toBe(0);
    file.forms.pop();
    const path = write('prune.json', file);
    const kept = await formgate(['plan', path]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('not in the file, left as it is (--prune would delete it)');
    const planned = await formgate(['plan', path, '--prune']);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(/^- form newsletter .*: delete, with its submissions \(--prune\)$/m);
    expect((await formgate(['apply', path])).code).toBe(0);
    expect(await formCount(owner.id)).toBe(2);
    expect((await formgate(['apply', path, '--prune'])).code).toBe(0);
    expect((await t.services.forms.listForms(owner.id)).map((f) => f.key)).toEqual(['contact']);
  });

  it('a missing variable or an inline secret stops with exit 1 before anything is written', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const path = write('missing.json', fileFor(owner.email));
    const missing = await runCli(['apply', path], { DATABASE_URL: t.database.url, SLACK_WEBHOOK_URL: secrets.SLACK_WEBHOOK_URL });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('forms.0.settings.accessKey: the environment variable CONTACT_ACCESS_KEY is not set');
    expect(await formCount(owner.id)).toBe(0);
    const inline = fileFor(owner.email);
    inline.forms[0]!.settings.accessKey = 'sesame';
    const refused = await formgate(['plan', write('inline.json', inline)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('forms.0.settings.accessKey: must be a ${VARIABLE} reference');
    expect(refused.stderr).not.toContain('sesame');
    expect(await formCount(owner.id)).toBe(0);
  });

  it('reads formgate.json in the working folder by default, and YAML like JSON', async () => {
    const [a, b] = [await createAccount(t.services, { planId: 'pro' }), await createAccount(t.services, { planId: 'pro' })];
    const folder = mkdtempSync(join(dir, 'cwd-'));
    writeFileSync(join(folder, 'formgate.json'), JSON.stringify(fileFor(a.email)));
    const env = { DATABASE_URL: t.database.url, ...secrets };
    const bin = resolve('bin/formgate.js');
    expect((await runToExit([bin, 'plan'], env, { cwd: folder })).code).toBe(2);
    expect((await runToExit([bin, 'apply'], env, { cwd: folder })).code).toBe(0);
    expect((await formgate(['apply', write('b.yml', YAML_FOR(b.email))])).code).toBe(0);
    expect(await exportForms(b.email)).toEqual(await exportForms(a.email));
    const none = await runToExit([bin, 'plan'], env, { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('cannot read the configuration file formgate.json: no such file');
  });

  it('the same file applied here and through --server makes identical accounts; the key decides which', async () => {
    const [here, there] = [await createAccount(t.services, { planId: 'pro' }), await createAccount(t.services, { planId: 'pro' })];
    const created = await formgate(['keys', 'create', there.email, '--scope', 'manage', '--json']);
    const remote = { FORMGATE_API_KEY: JSON.parse(created.stdout).apiKey as string };
    expect((await formgate(['apply', write('here.json', fileFor(here.email))])).code).toBe(0);

    const path = write('there.json', fileFor(there.email));
    const planned = await formgate(['plan', path, '--server', t.url], remote);
    expect(planned.stderr).toBe('');
    expect([planned.code, planned.stdout]).toEqual([2, expect.stringContaining('Plan: 2 to create, 0 to update, 0 to delete')]);
    const applied = await formgate(['apply', path, '--server', t.url], remote);
    expect([applied.code, applied.stderr]).toEqual([0, '']);
    const ids = (await t.services.forms.listForms(there.id)).map((f) => f.id).sort();
    expect(ids).toHaveLength(2);

    // Secrets the API does not show are not compared: the second plan finds nothing to do.
    const again = await formgate(['plan', path, '--server', t.url], remote);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('accessKey: secret set, not compared');
    expect((await formgate(['apply', path, '--server', t.url], remote)).code).toBe(0);
    expect((await t.services.forms.listForms(there.id)).map((f) => f.id).sort()).toEqual(ids);
    expect((await t.services.forms.listForms(there.id)).find((f) => f.key === 'contact')!.accessKey).toBe('sesame');

    const exportedThere = await formgate(['export', '--server', t.url], remote);
    expect(exportedThere.code).toBe(0);
    expect(JSON.parse(exportedThere.stdout)).toEqual({ account: there.email, forms: await exportForms(here.email) });
    expect(await exportForms(there.email)).toEqual(await exportForms(here.email));

    // A rotated secret goes through only with --write-secrets; the integration keeps its ID.
    const contact = (await t.services.forms.listForms(there.id)).find((f) => f.key === 'contact')!;
    const [slack] = await t.services.integrations.listIntegrations(contact.id);
    const rotated = { ...remote, CONTACT_ACCESS_KEY: 'open-sesame', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/rotated' };
    expect((await formgate(['apply', path, '--server', t.url], rotated)).code).toBe(0);
    expect((await t.services.forms.getForm(contact.id)).accessKey).toBe('sesame');
    const written = await formgate(['apply', path, '--server', t.url, '--write-secrets'], rotated);
    expect(written.code).toBe(0);
    expect(written.stdout).toContain('accessKey: secret written again');
    expect(written.stdout).not.toContain('open-sesame');
    expect((await t.services.forms.getForm(contact.id)).accessKey).toBe('open-sesame');
    expect((await t.services.integrations.listIntegrationTargets(contact.id)).map((i) => [i.integration.id, i.target.url])).toEqual([
      [slack!.id, 'https://hooks.slack.com/services/T0/B0/rotated'],
    ]);

    // A file for another account is refused, not applied to the key's.
    const elsewhere = await formgate(['apply', write('here.json', fileFor(here.email)), '--server', t.url], remote);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(`The file names the account ${here.email}`);
  });

  it('through --server a key without the manage scope changes nothing', async () => {
    const owner = await createAccount(t.services, { planId: 'pro' });
    const created = await formgate(['keys', 'create', owner.email, '--json']);
    const readOnly = { FORMGATE_API_KEY: JSON.parse(created.stdout).apiKey as string };
    const path = write('read-key.json', fileFor(owner.email));
    expect((await formgate(['plan', path, '--server', t.url], readOnly)).code).toBe(2);
    const refused = await formgate(['apply', path, '--server', t.url], readOnly);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: The server refused: /);
    expect(await formCount(owner.id)).toBe(0);
    const missing = await runCli(['plan', path, '--server', t.url], { DATABASE_URL: t.database.url, ...secrets });
    expect([missing.code, missing.stderr.trim()]).toEqual([1, 'error: --server needs an API key with the manage scope: set FORMGATE_API_KEY (or FORMGATE_API_KEY_FILE).']);
  });

  it('--help names the default file, the exit codes and --prune', async () => {
    // Commander wraps the text to the terminal's width.
    const help = async (...args: string[]) => (await formgate(args)).stdout.replace(/\s+/g, ' ');
    const plan = await help('plan', '--help');
    expect(plan).toContain('(default formgate.json; .yaml/.yml are YAML)');
    expect(plan).toContain('exits 0 when nothing would, 2 when something would, 1 on an error');
    expect(plan).toContain('--prune also delete the forms of the account the file does not name');
    expect(plan).toContain('--server <url>');
    expect(await help('apply', '--help')).toContain('in one transaction on this machine');
    expect(await help('export', '--help')).toContain('--out <file> write it to this file instead');
    const main = await help('--help');
    expect(main).toContain('plan [options] [file] show what applying a configuration file would change (exit 2 when something would)');
  });
});
