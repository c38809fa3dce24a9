import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { AirtableStandIn } from '../../test/helpers/airtable-stand-in.js';
import { createOwner, servicesFor } from '../../test/helpers/factories.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { GoogleStandIn } from '../../test/helpers/google-stand-in.js';
import { ListmonkStandIn } from '../../test/helpers/listmonk-stand-in.js';
import { MailchimpStandIn } from '../../test/helpers/mailchimp-stand-in.js';
import { NotionStandIn } from '../../test/helpers/notion-stand-in.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, runCliJson } from '../../test/helpers/server-process.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let formId: string;
const google = new GoogleStandIn();
const airtable = new AirtableStandIn(1000);
const notion = new NotionStandIn();
const mailchimp = new MailchimpStandIn();
const listmonk = new ListmonkStandIn();
let listmonkCaFile: string;

const env = () => ({
  DATABASE_URL: database.url,
  GOOGLE_SHEETS_API_URL: google.server.url,
  GOOGLE_TOKEN_URL: google.tokenUrl,
  AIRTABLE_API_URL: airtable.server.url,
  NOTION_API_URL: notion.server.url,
  MAILCHIMP_API_URL: mailchimp.server.url,
  // The owner's listmonk runs on loopback here, with a certificate of its own.
  HOOK_ALLOW_PRIVATE_TARGETS: 'true',
  NODE_EXTRA_CA_CERTS: listmonkCaFile,
});
const ok = (args: string[]) => runCliJson(args, env());

beforeAll(async () => {
  await Promise.all([google.start(), airtable.start(), notion.start(), mailchimp.start(), listmonk.start()]);
  listmonkCaFile = join(tmpdir(), `formgate-cli-listmonk-${process.pid}.pem`);
  writeFileSync(listmonkCaFile, listmonk.ca);
  database = await createTestDatabase();
  handle = database.open();
  await migrateToLatest(handle);
  ({ form: { id: formId } } = await createOwner(servicesFor(handle)));
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
  await Promise.all([google.server.stop(), airtable.server.stop(), notion.server.stop(), mailchimp.server.stop(), listmonk.server.stop()]);
});

const summary = (kind: string, name: string) => ({ id: expect.stringMatching(/^int_/), formId, kind, name, enabled: true, createdAt: expect.stringMatching(/\.\d{3}Z$/) });

describe(`formgate integrations add for the services that keep the data, on ${testDialect}`, { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('sheets, airtable and notion: added with their options, and each "test" writes through the service', async () => {
    const account = google.serviceAccount('formgate-cli');
    const keyFile = join(tmpdir(), `formgate-cli-key-${process.pid}.json`);
    writeFileSync(keyFile, account.key);
    const spreadsheet = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';
    google.createSpreadsheet(spreadsheet, [account.client_email], ['Leads']);
    const sheets = await ok(['integrations', 'add', formId, '--kind', 'sheets', '--key-file', keyFile, '--spreadsheet', spreadsheet, '--sheet', 'Leads']);
    expect(sheets).toEqual({ integration: summary('sheets', 'Google Sheets') });

    const base = 'appCLI0000000000A';
    airtable.createTable(base, 'patCli.secret', 'Leads', ['Email', 'Message']);
    const air = await ok(['integrations', 'add', formId, '--kind', 'airtable', '--token', 'patCli.secret', '--base', base, '--table', 'Leads', '--map', 'email=Email', '--map', 'message=Message', '--name', 'CRM']);
    expect(air).toEqual({ integration: summary('airtable', 'CRM') });

    const database = notion.createDatabase('ntn_cli_token', { Name: 'title', email: 'email' });
    const page = await ok(['integrations', 'add', formId, '--kind', 'notion', '--token', 'ntn_cli_token', '--database', database]);
    expect(page).toEqual({ integration: summary('notion', 'Notion') });

    expect(await ok(['integrations', 'list', formId])).toEqual({ integrations: [sheets.integration, air.integration, page.integration] });
    for (const added of [sheets, air, page]) expect(await ok(['integrations', 'test', added.integration.id])).toEqual({ sent: true });
    expect(google.rows(spreadsheet, 'Leads')).toEqual([
      ['submittedAt', 'submissionId', 'email', 'message'],
      [expect.any(String), 'test', 'test@example.com', 'This is a test message from Formgate.'],
    ]);
    expect(airtable.records(base, 'Leads')).toEqual([{ Email: 'test@example.com', Message: 'This is a test message from Formgate.' }]);
    expect(notion.pages(database)).toHaveLength(1);

    // The secrets never come back out.
    const listed = await runCli(['integrations', 'list', formId, '--json'], env());
    for (const secret of ['patCli.secret', 'ntn_cli_token', 'PRIVATE KEY']) expect(listed.stdout).not.toContain(secret);

    const bad = await runCli(['integrations', 'add', formId, '--kind', 'airtable', '--token', 'patX', '--base', 'nope', '--table', 'T', '--json'], env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('base: must be a base ID');
  });

  it('mailchimp and listmonk: added with their options; "test" checks the audience and the lists and signs no one up', async () => {
    const apiKey = '0123456789abcdef0123456789abcdef-us21';
    mailchimp.createAudience('a1b2c3d4e5', apiKey);
    const chimp = await ok(['integrations', 'add', formId, '--kind', 'mailchimp', '--api-key', apiKey, '--audience', 'a1b2c3d4e5', '--consent-field', 'newsletter']);
    expect(chimp).toEqual({ integration: summary('mailchimp', 'Mailchimp') });

    listmonk.addUser('formgate', 'lm-token-0123');
    listmonk.createList(3, 'Newsletter');
    listmonk.createList(7, 'Events');
    const lm = await ok(['integrations', 'add', formId, '--kind', 'listmonk', '--url', listmonk.server.url, '--username', 'formgate', '--token', 'lm-token-0123', '--list', '3', '--list', '7', '--name', 'News']);
    expect(lm).toEqual({ integration: summary('listmonk', 'News') });

    for (const added of [chimp, lm]) expect(await ok(['integrations', 'test', added.integration.id])).toEqual({ sent: true });
    expect(mailchimp.members('a1b2c3d4e5')).toEqual([]);
    expect(listmonk.subscribers).toEqual([]);
    expect(listmonk.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/lists/3', 'GET /api/lists/7']);

    const listed = await runCli(['integrations', 'list', formId, '--json'], env());
    for (const secret of [apiKey, 'lm-token-0123']) expect(listed.stdout).not.toContain(secret);

    const bad = await runCli(['integrations', 'add', formId, '--kind', 'listmonk', '--url', 'http://lists.example.com', '--username', 'formgate', '--token', 't', '--list', 'x', '--json'], env());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('url: must be an https: URL');
    expect(bad.stderr).toContain('lists: must be list IDs');
  });
});
