import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createForm, createOwner, insertSubmissions } from '../helpers/factories.js';

let t: AppUnderTest;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  t = await buildTestApp();
  owner = await createOwner(t.services);
});
afterAll(async () => t?.close());

async function list(app: AppUnderTest, formId: string, cursor?: string): Promise<Response> {
  const query = `limit=2${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
  return app.fetch(`/v1/api/forms/${formId}/submissions?${query}`, { headers: owner.auth });
}

async function firstCursor(app: AppUnderTest, formId: string): Promise<string> {
  const res = await list(app, formId);
  expect(res.status).toBe(200);
  const { nextCursor } = (await res.json()) as { nextCursor: string | null };
  expect(nextCursor).toEqual(expect.any(String));
  return nextCursor!;
}

async function expectRefused(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: 'validation_failed', message: expect.any(String), fieldErrors: { cursor: expect.any(String) } });
}

/** Five rows at fixed, distinct times: the newest two form the first page. */
async function formWithRows(): Promise<{ formId: string; ids: string[] }> {
  const form = await createForm(t.services, owner.account.id);
  const ids = await insertSubmissions(
    t.services,
    form.id,
    [1, 2, 3, 4, 5].map((n) => ({ createdAt: `2026-04-01T00:00:00.00${n}Z` })),
  );
  return { formId: form.id, ids };
}

describe('tamper-evident cursors', () => {
  it('a cursor the API issued pages on', async () => {
    const { formId, ids } = await formWithRows();
    const res = await list(t, formId, await firstCursor(t, formId));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { submissions: Array<{ id: string }> }).submissions.map((s) => s.id)).toEqual([ids[2], ids[1]]);
  });

  it('a forged cursor of the right shape (a real row position the client wrote itself) is refused', async () => {
    const { formId, ids } = await formWithRows();
    const position = Buffer.from(JSON.stringify(['2026-04-01T00:00:00.003Z', ids[2]])).toString('base64url');
    await expectRefused(await list(t, formId, position));
    // Keeping a real signature but changing the position does not help either.
    const issued = await firstCursor(t, formId);
    const [, mac] = issued.split('.');
    await expectRefused(await list(t, formId, `${position}.${mac}`));
    await expectRefused(await list(t, formId, `${issued.slice(0, -1)}${issued.endsWith('A') ? 'B' : 'A'}`));
  });

  it('a cursor issued for one form is refused on another form of the same account', async () => {
    const a = await formWithRows();
    const b = await formWithRows();
    await expectRefused(await list(t, b.formId, await firstCursor(t, a.formId)));
  });

  it('every instance on one database accepts the cursors of another, also after a restart', async () => {
    const { formId, ids } = await formWithRows();
    const cursor = await firstCursor(t, formId);
    const other = await buildTestApp({ database: t.database });
    try {
      const res = await list(other, formId, cursor);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { submissions: Array<{ id: string }> }).submissions[0]!.id).toBe(ids[2]);
    } finally {
      await other.close();
    }
  });
});
