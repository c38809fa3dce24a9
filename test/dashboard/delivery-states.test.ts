import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageLogEntry } from '../../src/features/outbox/outbox.types.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

// A message whose attempt failed reads "retrying" with when the next comes, and "failed" once
// the outbox gave up: never "queued", which says nothing was tried.
let receiver: HttpsReceiver;
let t: AppUnderTest;
let client: DashboardClient;
let accountId: string;
let formId: string;
const RETRY_BASE_MS = 60_000;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // A minute before the second attempt: the test sees the first one's outcome at leisure.
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', MAIL_RETRY_BASE_MS: String(RETRY_BASE_MS) }, hookTransport: { ca: receiver.ca } });
  client = new DashboardClient(t);
  const email = `states-${randomBase62(6).toLowerCase()}@example.com`;
  await client.signUp(email);
  accountId = (await t.handle.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;
  formId = (await t.services.forms.createForm(accountId, { name: 'Contact' })).id;
  await t.services.integrations.addIntegration(formId, { kind: 'slack', name: 'Team chat', url: `${receiver.url}/slack` }, accountId);
  receiver.respond((_req, res) => res.writeHead(503).end('busy'));
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const row = (html: string) => html.split('<tr data-message=').slice(1).find((r) => r.includes('>Slack message<'))!;

describe('the delivery log tells retrying from failed', () => {
  it('after a failed attempt: "retrying", the answer, and the next attempt\'s time; after the last: "failed", no next attempt', async () => {
    const res = await submit(t, formId, { json: { message: 'hello' } }, JSON_ACCEPT);
    const { submissionId } = (await res.json()) as { submissionId: string };
    const entry = async () => (await t.services.integrations.listMessagesOfSubmission(accountId, submissionId))[0]!;
    // The message is queued with the submission's batch: it may not be listed yet.
    await waitFor(async () => ((await entry()) as MessageLogEntry | undefined)?.lastAttemptAt != null, 20_000, 'the first attempt');

    const retrying = await entry();
    expect(retrying).toMatchObject({ state: 'retrying', attempts: 1, lastStatus: 'HTTP 503' });
    const wait = Date.parse(retrying.nextAttemptAt!) - Date.parse(retrying.lastAttemptAt!);
    expect(wait).toBeGreaterThanOrEqual(RETRY_BASE_MS * 0.5);
    const page = await client.get(`/dashboard/submissions/${submissionId}`);
    expect(page.res.status).toBe(200);
    const retryingRow = row(page.html);
    expect(retryingRow).toContain('class="state-retrying">retrying');
    expect(retryingRow).toContain('HTTP 503');
    expect(retryingRow).toMatch(new RegExp(`next attempt <time datetime="${retrying.nextAttemptAt!.replace(/[.]/g, '\\.')}"`));
    expect(retryingRow).not.toContain('queued');

    // The last allowed attempt, due now: the outbox gives up and says so.
    await t.handle.db.updateTable('integration_messages').set({ attempts: 4, next_attempt_at: new Date(Date.now() - 1000).toISOString() }).where('submission_id', '=', submissionId).execute();
    t.services.outbox.wake();
    await waitFor(async () => (await entry()).state === 'failed', 20_000, 'the outbox to give up');
    const failed = await entry();
    expect(failed.nextAttemptAt).toBeNull();
    const after = row((await client.get(`/dashboard/submissions/${submissionId}`)).html);
    expect(after).toContain('class="state-failed">failed');
    expect(after).not.toContain('next attempt');
    expect(after).toContain('Send again');
  });
});
