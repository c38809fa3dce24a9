import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { JSON_ACCEPT, storedSubmission, submit } from '../helpers/submit.js';
import { waitFor } from '../helpers/wait.js';

let receiver: HttpsReceiver;
let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true', HOOK_TIMEOUT_MS: '3000' }, hookTransport: { ca: receiver.ca } });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});
beforeEach(async () => {
  owner = await createOwner(t.services, { planId: 'pro', form: { blockedTerms: ['casino'] } });
});

async function subscribe(): Promise<string> {
  return (await t.services.hooks.createHook(owner.account.id, { formId: owner.form.id, targetUrl: `${receiver.url}/in` })).hook.id;
}

const receivedFor = (submissionId: string) =>
  receiver.received.filter((r) => String(r.headers['webhook-id']).startsWith(`${submissionId}.`));

async function post(fields: Record<string, unknown>): Promise<string> {
  const res = await submit(t, owner.form.id, { json: fields }, JSON_ACCEPT);
  return ((await res.json()) as { submissionId: string }).submissionId;
}

/** Everything queued or being sent has settled: no outbox row and no pending or sending delivery. */
async function outboxSettled(): Promise<void> {
  await waitFor(
    async () => {
      const outboxRows = await t.handle.db.selectFrom('outbox').select('submission_id').execute();
      const open = await t.handle.db.selectFrom('hook_deliveries').select('id').where('state', 'in', ['pending', 'sending']).execute();
      return outboxRows.length === 0 && open.length === 0;
    },
    15_000,
    'the outbox to drain',
  );
}

describe('marking spam / not spam', () => {
  it('a submission marked not spam goes to the hook exactly once, and never again when marked again', async () => {
    const hookId = await subscribe();
    const spamId = await post({ message: 'casino night' });
    await outboxSettled();
    expect(receivedFor(spamId)).toHaveLength(0);

    await t.services.triage.markSubmission(spamId, false, owner.account.id);
    await waitFor(() => receivedFor(spamId).length === 1, 15_000, 'the delivery of the released submission');
    const [delivery] = receivedFor(spamId);
    expect(delivery!.headers['webhook-id']).toBe(`${spamId}.${hookId}`);
    expect(JSON.parse(delivery!.body)).toMatchObject({ id: spamId, form_id: owner.form.id, fields: { message: 'casino night' } });
    expect(await storedSubmission(t, spamId)).toMatchObject({ is_spam: 0, spam_reason: null, outbound_released: 1 });

    // Spam again, then not spam again, several times and concurrently: nothing more is sent.
    await t.services.triage.markSubmission(spamId, true, owner.account.id);
    expect(await storedSubmission(t, spamId)).toMatchObject({ is_spam: 1, spam_reason: 'marked' });
    await Promise.all([1, 2, 3].map(() => t.services.triage.markSubmission(spamId, false, owner.account.id)));
    await t.services.triage.markSubmission(spamId, false);
    await outboxSettled();
    // A later submission is delivered, which shows the dispatcher ran after the re-marks.
    const later = await post({ message: 'hello' });
    await waitFor(() => receivedFor(later).length === 1, 15_000, 'a later delivery');
    expect(receivedFor(spamId)).toHaveLength(1);
    const rows = await t.handle.db.selectFrom('hook_deliveries').select('id').where('submission_id', '=', spamId).execute();
    expect(rows).toHaveLength(1);
  });

  it('concurrent first releases of the same submission send it once', async () => {
    await subscribe();
    const spamId = await post({ message: 'casino' });
    const results = await Promise.all([1, 2, 3, 4].map(() => t.services.triage.markSubmissions([spamId], false, owner.account.id)));
    expect(results.flatMap((r) => r.released)).toEqual([spamId]);
    await waitFor(() => receivedFor(spamId).length === 1, 15_000, 'the delivery');
    await outboxSettled();
    expect(receivedFor(spamId)).toHaveLength(1);
  });

  it('a submission that was never spam is not sent again when marked spam and back', async () => {
    await subscribe();
    const id = await post({ message: 'hello' });
    await waitFor(() => receivedFor(id).length === 1, 15_000, 'the first delivery');
    await t.services.triage.markSubmission(id, true, owner.account.id);
    const { released } = await t.services.triage.markSubmissions([id], false, owner.account.id);
    expect(released).toEqual([]);
    await outboxSettled();
    expect(receivedFor(id)).toHaveLength(1);
  });

  it('goes to the hooks that exist when it is released, as a new submission would', async () => {
    const spamId = await post({ message: 'casino' });
    const hookId = await subscribe(); // created after the submission arrived
    await t.services.triage.markSubmission(spamId, false, owner.account.id);
    await waitFor(() => receivedFor(spamId).length === 1, 15_000, 'the delivery');
    expect(receivedFor(spamId)[0]!.headers['webhook-id']).toBe(`${spamId}.${hookId}`);
  });

  it('marks only the account\'s own submissions; another account\'s is not found', async () => {
    const id = await post({ message: 'casino' });
    const other = await createOwner(t.services);
    await expect(t.services.triage.markSubmission(id, false, other.account.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await t.services.triage.markSubmissions([id, 'sub_nope'], false, other.account.id)).marked).toEqual([]);
    expect(await storedSubmission(t, id)).toMatchObject({ is_spam: 1, spam_reason: 'blocked_term' });
  });

  it('the API shows the owner\'s decision', async () => {
    const id = await post({ message: 'hello' });
    await t.services.triage.markSubmission(id, true, owner.account.id);
    const res = await t.fetch(`/v1/api/submissions/${id}`, { headers: owner.auth });
    expect(((await res.json()) as { submission: unknown }).submission).toMatchObject({ isSpam: 1, spamReason: 'marked' });
  });
});
