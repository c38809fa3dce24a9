import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { submit } from '../helpers/submit.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('group commit', () => {
  it('200 concurrent submits are each stored exactly once under the ID they were answered with', async () => {
    const { form } = await createOwner(t.services);
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => submit(t, form.id, { json: { i } })));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Array<{ submissionId: string }>;
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const rows = await t.handle.db.selectFrom('submissions').select(['id', 'payload']).where('form_id', '=', form.id).execute();
    expect(rows).toHaveLength(200);
    const byId = new Map(rows.map((r) => [r.id, JSON.parse(r.payload).i as number]));
    bodies.forEach((body, i) => expect(byId.get(body.submissionId)).toBe(i));
  });
});
