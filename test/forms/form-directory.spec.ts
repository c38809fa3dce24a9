import { describe, expect, it } from 'vitest';
import { DIRECTORY_FULL_LOAD_MS, DIRECTORY_OVERLAP_MS, DIRECTORY_PAGE, FormDirectory } from '../../src/features/forms/form-directory.js';
import { newId } from '../../src/platform/lib/ids.js';

const TTL = 1000;

/** A directory over an in-memory forms table (ID → createdAt), counting its reads; the clock is the test's. */
function directoryOver(table: Map<string, string>) {
  const reads: Array<{ kind: 'page'; after: string | undefined } | { kind: 'since'; since: string }> = [];
  const failures: unknown[] = [];
  let now = Date.parse('2026-11-26T10:00:00.000Z');
  let failNext: Error | undefined;
  const failIfAsked = () => {
    if (!failNext) return;
    const err = failNext;
    failNext = undefined;
    throw err;
  };
  const directory = new FormDirectory(
    {
      idsAfter: async (after, limit) => {
        reads.push({ kind: 'page', after });
        failIfAsked();
        return [...table.keys()].sort().filter((id) => after === undefined || id > after).slice(0, limit);
      },
      idsCreatedSince: async (since) => {
        reads.push({ kind: 'since', since });
        failIfAsked();
        return [...table].filter(([, createdAt]) => createdAt >= since).map(([id]) => id);
      },
    },
    TTL,
    () => now,
    (err) => failures.push(err),
  );
  return {
    directory,
    reads,
    failures,
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    createForm: (createdAt = new Date(now).toISOString()) => {
      const id = newId('frm');
      table.set(id, createdAt);
      return id;
    },
    failNextRead: (err: Error) => {
      failNext = err;
    },
  };
}

describe('form directory', () => {
  it('tells nothing before its first read, which the first lookup starts; then excludes invented IDs and keeps real ones', async () => {
    const t = directoryOver(new Map());
    const real = t.createForm();
    expect(t.directory.excludes(newId('frm'))).toBe(false);
    expect(t.reads).toEqual([{ kind: 'page', after: undefined }]);
    await t.directory.refresh();
    expect(t.reads).toHaveLength(1);
    expect(t.directory.excludes(real)).toBe(false);
    const invented = Array.from({ length: 1000 }, () => newId('frm'));
    // 30-bit hashes of one form: a collision among 1,000 IDs has odds of about 1 in a million.
    expect(invented.filter((id) => !t.directory.excludes(id))).toEqual([]);
    expect(t.reads).toHaveLength(1);
  });

  it('answers only within its second; then a lookup starts an incremental read, overlapping the last one', async () => {
    const t = directoryOver(new Map());
    t.createForm();
    await t.directory.refresh();
    const firstReadAt = t.now();
    t.advance(TTL - 1);
    const elsewhere = t.createForm();
    expect(t.directory.excludes(elsewhere)).toBe(true);
    t.advance(1);
    // Stale: it cannot tell, and reads what was created since.
    expect(t.directory.excludes(elsewhere)).toBe(false);
    await t.directory.refresh();
    expect(t.reads.at(-1)).toEqual({ kind: 'since', since: new Date(firstReadAt - DIRECTORY_OVERLAP_MS).toISOString() });
    expect(t.directory.excludes(elsewhere)).toBe(false);
    expect(t.directory.excludes(newId('frm'))).toBe(true);
  });

  it('finds a form whose creating clock ran behind by less than the overlap', async () => {
    const t = directoryOver(new Map());
    await t.directory.refresh();
    t.advance(TTL);
    const skewed = t.createForm(new Date(t.now() - DIRECTORY_OVERLAP_MS + TTL + 1).toISOString());
    await t.directory.refresh();
    expect(t.directory.excludes(skewed)).toBe(false);
  });

  it('loads in pages, and again in full once DIRECTORY_FULL_LOAD_MS have passed (what a clock skewed past the overlap hid)', async () => {
    const t = directoryOver(new Map());
    const ids = Array.from({ length: DIRECTORY_PAGE + 1 }, () => t.createForm()).sort();
    await t.directory.refresh();
    expect(t.reads).toEqual([
      { kind: 'page', after: undefined },
      { kind: 'page', after: ids[DIRECTORY_PAGE - 1] },
    ]);
    expect(ids.filter((id) => t.directory.excludes(id))).toEqual([]);
    const hidden = t.createForm('2000-01-01T00:00:00.000Z');
    t.advance(TTL);
    await t.directory.refresh();
    t.advance(TTL);
    expect(t.directory.excludes(hidden)).toBe(false);
    expect((await t.directory.refresh(), t.directory.excludes(hidden))).toBe(true);
    t.advance(DIRECTORY_FULL_LOAD_MS);
    await t.directory.refresh();
    expect(t.reads.slice(-2).map((r) => r.kind)).toEqual(['page', 'page']);
    expect(t.directory.excludes(hidden)).toBe(false);
  });

  it('knows a form added through this instance at once', async () => {
    const t = directoryOver(new Map());
    await t.directory.refresh();
    const id = newId('frm');
    expect(t.directory.excludes(id)).toBe(true);
    t.directory.add(id);
    expect(t.directory.excludes(id)).toBe(false);
  });

  it('makes one read at a time, however many lookups find it stale', async () => {
    const t = directoryOver(new Map());
    const lookups = Array.from({ length: 100 }, () => t.directory.excludes(newId('frm')));
    expect(lookups.every((excluded) => excluded === false)).toBe(true);
    await t.directory.refresh();
    expect(t.reads).toHaveLength(1);
  });

  it('after a failed read excludes nothing, reports it, and tries again at the next lookup', async () => {
    const t = directoryOver(new Map());
    t.failNextRead(new Error('connection terminated'));
    const invented = newId('frm');
    expect(t.directory.excludes(invented)).toBe(false);
    await t.directory.refresh();
    expect(t.failures).toEqual([new Error('connection terminated')]);
    expect(t.directory.excludes(invented)).toBe(false);
    await t.directory.refresh();
    expect(t.directory.excludes(invented)).toBe(true);
    expect(t.reads).toHaveLength(2);
  });
});
