import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/platform/lib/time.js';
import { submissionToApiSubmission } from '../../src/features/submissions/submission.types.js';
import { startTestApp, type TestApp } from '../../test/helpers/app.js';
import { createOwner, insertSubmissions } from '../../test/helpers/factories.js';
import { PROCESS_TEST_TIMEOUT_MS, runCli, type FinishedProcess } from '../../test/helpers/server-process.js';
import { JSON_ACCEPT, submit } from '../../test/helpers/submit.js';

// Marks by CLI processes while the server stores submissions in the same SQLite file. A
// transaction that reads before it writes cannot take SQLite's write lock once another connection
// has committed since its read (SQLite answers "database is locked" at once, without waiting
// busy_timeout): a user saw 30 of 400 marks fail that way, four CLI processes at a time. A mark
// reads the submission and learns its words before it writes; long messages make that stretch
// long enough that, before transactions began by taking the lock, most of these marks failed.
const CLI_PROCESSES = 4;
const MARKS_PER_PROCESS = 2;
const SUBMITS_IN_FLIGHT = 2;
const longMessage = (n: number) => Array.from({ length: 3000 }, (_, w) => `word${w}x${n}`).join(' ');

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('CLI commands beside a running server', { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('submissions mark succeeds in every CLI process while the server stores submissions', async () => {
    const { form } = await createOwner(t.services);
    const createdAt = nowIso();
    const ids = await insertSubmissions(
      t.services,
      form.id,
      Array.from({ length: CLI_PROCESSES * MARKS_PER_PROCESS }, (_, i) => ({ createdAt, payload: { message: longMessage(i) } })),
    );

    let loading = true;
    const loadStatuses: number[] = [];
    const load = async () => {
      while (loading) {
        const res = await submit(t, form.id, { json: { message: 'written by the server meanwhile' } }, JSON_ACCEPT);
        await res.arrayBuffer();
        loadStatuses.push(res.status);
      }
    };
    const loaders = Array.from({ length: SUBMITS_IN_FLIGHT }, load);

    const marks: Array<{ id: string; result: FinishedProcess }> = [];
    const cli = async (worker: number) => {
      for (const id of ids.slice(worker * MARKS_PER_PROCESS, (worker + 1) * MARKS_PER_PROCESS)) {
        marks.push({ id, result: await runCli(['submissions', 'mark', id, '--spam', '--json'], { DATABASE_URL: t.database.url }) });
      }
    };
    try {
      await Promise.all(Array.from({ length: CLI_PROCESSES }, (_, worker) => cli(worker)));
    } finally {
      loading = false;
      await Promise.all(loaders);
    }

    expect(marks.filter((m) => m.result.code !== 0 || m.result.stderr !== '').map((m) => m.result.stderr)).toEqual([]);
    for (const { id, result } of marks) expect(JSON.parse(result.stdout).submission).toMatchObject({ id, isSpam: 1, spamReason: 'marked' });
    const rows = await Promise.all(ids.map((id) => t.services.submissionQueries.getSubmissionForOperator(id)));
    expect(rows.map((r) => submissionToApiSubmission(r).isSpam)).toEqual(ids.map(() => 1));
    // The server was writing all along, and none of its writes failed either.
    expect(loadStatuses.length).toBeGreaterThan(0);
    expect(new Set(loadStatuses)).toEqual(new Set([200]));
  });
});
