import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { buildRequest, sendAllAtOnce } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('group commit', () => {
  it('200 concurrent submits share transactions, and each is stored exactly once under the ID it was answered with', async () => {
    const { form } = await createOwner(t.services);
    const before = t.services.submissions.writerStats;
    const host = new URL(t.url).host;
    const requests = Array.from({ length: 200 }, (_, i) =>
      buildRequest({
        method: 'POST',
        path: `/v1/submit/${form.id}`,
        host,
        headers: [['Content-Type', 'application/json'], ['Accept', 'application/json']],
        body: Buffer.from(JSON.stringify({ i })),
      }),
    );
    const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    const responses = await sendAllAtOnce(t.url, requests, {
      beforeWrite: () => waitFor(async () => (await connections()) >= requests.length, 10_000, 'the server to accept every connection'),
    });
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const bodies = responses.map((r) => JSON.parse(r.body) as { submissionId: string });
    const rows = await t.handle.db.selectFrom('submissions').select(['id', 'payload']).where('form_id', '=', form.id).execute();
    expect(rows).toHaveLength(200);
    const byId = new Map(rows.map((r) => [r.id, JSON.parse(r.payload).i as number]));
    bodies.forEach((body, i) => expect(byId.get(body.submissionId)).toBe(i));

    // Batching happened: far fewer transactions than submissions. Without group commit this is
    // 200 transactions for 200 submissions.
    const after = t.services.submissions.writerStats;
    const transactions = after.transactions - before.transactions;
    expect(after.submissions - before.submissions).toBe(200);
    expect(transactions).toBeLessThanOrEqual(100);

    if (t.handle.dialect === 'postgres') {
      // Seen from the database itself: rows written by one transaction share its xmin.
      const { rows: xids } = await sql<{ n: string }>`
        select count(distinct xmin::text) as n from submissions where form_id = ${form.id}`.execute(t.handle.db);
      expect(Number(xids[0]!.n)).toBe(transactions);
    }
  });
});
