import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner } from '../helpers/factories.js';
import { buildSpecApp } from '../helpers/spec-app.js';
import { BROWSER_ACCEPT, JSON_ACCEPT, countStored, storedSubmission, submit } from '../helpers/submit.js';

// The submit endpoint through the whole app over SQLite, in the unit tier: parsing, control
// fields, the form's spam rules, the answer for each caller, and the group-committing writer.
// The *.test.ts files beside it run it on both databases.
let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;
beforeAll(async () => {
  t = await buildSpecApp({ env: { BASE_URL: 'https://forms.example.com' } });
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

const storedOf = async (res: Response) => {
  const { submissionId } = (await res.json()) as { submissionId: string };
  const row = (await storedSubmission(t, submissionId))!;
  return { payload: JSON.parse(row.payload) as unknown, isSpam: row.is_spam, spamReason: row.spam_reason };
};

describe('POST /v1/submit/:formId', () => {
  it('stores a JSON object without its control fields and answers with its ID', async () => {
    const res = await submit(t, owner.form.id, { json: { name: 'Ada', n: 36, _gotcha: '', redirect: 'https://x.example', access_key: 'k' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await storedOf(res.clone())).toEqual({ payload: { name: 'Ada', n: 36 }, isSpam: 0, spamReason: null });
    expect(await res.json()).toEqual({ ok: true, submissionId: expect.stringMatching(/^sub_[0-9A-Za-z]{24}$/) });
  });

  it("redirects a browser's form post to the hosted thank-you page", async () => {
    const res = await submit(t, owner.form.id, { form: { name: 'Ada', topic: ['a', 'b'] } }, BROWSER_ACCEPT);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://forms.example.com/thanks');
  });

  it('files a filled honeypot and a blocked term as spam, answering like success', async () => {
    const honeypot = await submit(t, owner.form.id, { form: { name: 'Bot', website: 'http://spam.example' } }, JSON_ACCEPT);
    expect(await honeypot.clone().json()).toMatchObject({ ok: true, filtered: 'spam' });
    expect(await storedOf(honeypot)).toEqual({ payload: { name: 'Bot' }, isSpam: 1, spamReason: 'honeypot' });

    const ruled = await createForm(t.services, owner.account.id, { blockedTerms: ['casino'] });
    const term = await submit(t, ruled.id, { json: { m: 'Best CASINO in town' } });
    expect(await storedOf(term)).toMatchObject({ isSpam: 1, spamReason: 'blocked_term' });
  });

  it('refuses a malformed body and an unknown form in the error envelope, storing nothing', async () => {
    const before = await countStored(t, owner.form.id);
    const malformed = await submit(t, owner.form.id, { raw: '{"name": ', contentType: 'application/json' }, JSON_ACCEPT);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: 'validation_failed' });
    const unknown = await submit(t, 'frm_doesnotexist', { json: { a: 1 } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    expect(await countStored(t, owner.form.id)).toBe(before);
  });

  it('commits submissions sent together in shared transactions, each stored once under the ID it was answered with', async () => {
    const form = await createForm(t.services, owner.account.id);
    const before = t.services.submissions.writerStats;
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => submit(t, form.id, { json: { i } })));
    const stored = await Promise.all(answers.map(storedOf));
    expect(stored.map((s) => s.payload)).toEqual(Array.from({ length: 40 }, (_, i) => ({ i })));
    const after = t.services.submissions.writerStats;
    expect(after.submissions - before.submissions).toBe(40);
    // One transaction a submission without group commit.
    expect(after.transactions - before.transactions).toBeLessThanOrEqual(20);
  });
});
