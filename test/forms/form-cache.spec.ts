import { describe, expect, it } from 'vitest';
import { FORM_CACHE_TTL_MS, FORM_READ_BATCH, FormCache } from '../../src/features/forms/form-cache.js';
import type { Form } from '../../src/features/forms/form.types.js';
import { newId } from '../../src/platform/lib/ids.js';

/** A cache over an in-memory table, counting the reads it makes; the clock is the test's. */
function cacheOver(table: Map<string, Form>) {
  const reads: string[][] = [];
  let now = 1_000_000;
  let failNext: Error | undefined;
  const cache = new FormCache(
    async (ids) => {
      reads.push(ids);
      if (failNext) {
        const err = failNext;
        failNext = undefined;
        throw err;
      }
      return ids.flatMap((id) => (table.has(id) ? [table.get(id)!] : []));
    },
    () => now,
  );
  return {
    cache,
    reads,
    advance: (ms: number) => {
      now += ms;
    },
    failNextRead: (err: Error) => {
      failNext = err;
    },
  };
}

const formNamed = (name: string): Form => ({ id: newId('frm'), name }) as Form;

describe('form cache: answers from memory', () => {
  it('reads a form once, then answers from memory until the TTL passes', async () => {
    const form = formNamed('Contact');
    const { cache, reads, advance } = cacheOver(new Map([[form.id, form]]));
    expect(await cache.find(form.id)).toBe(form);
    expect(await cache.find(form.id)).toBe(form);
    advance(FORM_CACHE_TTL_MS - 1);
    expect(await cache.find(form.id)).toBe(form);
    expect(reads).toHaveLength(1);
    advance(1);
    expect(await cache.find(form.id)).toBe(form);
    expect(reads).toHaveLength(2);
  });

  it('peeks without reading: the form or null while fresh, undefined when it must be read', async () => {
    const form = formNamed('Contact');
    const unknown = newId('frm');
    const { cache, reads, advance } = cacheOver(new Map([[form.id, form]]));
    expect(cache.peek(form.id)).toBeUndefined();
    expect(cache.peek(unknown)).toBeUndefined();
    await Promise.all([cache.find(form.id), cache.find(unknown)]);
    expect(cache.peek(form.id)).toBe(form);
    expect(cache.peek(unknown)).toBeNull();
    advance(FORM_CACHE_TTL_MS);
    expect(cache.peek(form.id)).toBeUndefined();
    expect(cache.peek(unknown)).toBeUndefined();
    expect(reads).toHaveLength(1);
  });

  it('joins a read under way: concurrent lookups of one ID make one read', async () => {
    const form = formNamed('Contact');
    const unknown = newId('frm');
    const { cache, reads } = cacheOver(new Map([[form.id, form]]));
    const found = await Promise.all([cache.find(form.id), cache.find(form.id), cache.find(unknown), cache.find(unknown)]);
    expect(found).toEqual([form, form, undefined, undefined]);
    expect(reads).toHaveLength(1);
    expect([...reads[0]!].sort()).toEqual([form.id, unknown].sort());
  });

  it('reads the IDs missed in one turn together, at most FORM_READ_BATCH per read', async () => {
    const { cache, reads } = cacheOver(new Map());
    const ids = Array.from({ length: FORM_READ_BATCH * 2 + 5 }, () => newId('frm'));
    expect(await Promise.all(ids.map((id) => cache.find(id)))).toEqual(ids.map(() => undefined));
    expect(reads.map((r) => r.length)).toEqual([FORM_READ_BATCH, FORM_READ_BATCH, 5]);
    expect(reads.flat().sort()).toEqual([...ids].sort());
  });
});

describe('form cache: what another instance changed is seen within the TTL', () => {
  it('an ID that named no form is read again after the TTL, and a form created meanwhile is found', async () => {
    const table = new Map<string, Form>();
    const { cache, reads, advance } = cacheOver(table);
    const form = formNamed('Created elsewhere');
    expect(await cache.find(form.id)).toBeUndefined();
    table.set(form.id, form);
    expect(await cache.find(form.id)).toBeUndefined(); // still the cached answer
    expect(reads).toHaveLength(1);
    advance(FORM_CACHE_TTL_MS);
    expect(await cache.find(form.id)).toBe(form);
  });

  it('a form deleted elsewhere is unknown after the TTL', async () => {
    const form = formNamed('Deleted elsewhere');
    const table = new Map([[form.id, form]]);
    const { cache, advance } = cacheOver(table);
    expect(await cache.find(form.id)).toBe(form);
    table.delete(form.id);
    advance(FORM_CACHE_TTL_MS);
    expect(await cache.find(form.id)).toBeUndefined();
  });
});

describe('form cache: errors and changes through this instance', () => {
  it('a failed read fails every lookup waiting for it and is not remembered', async () => {
    const form = formNamed('Contact');
    const { cache, reads, failNextRead } = cacheOver(new Map([[form.id, form]]));
    failNextRead(new Error('database down'));
    const results = await Promise.allSettled([cache.find(form.id), cache.find(form.id)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.find(form.id)).toBe(form);
    expect(reads).toHaveLength(2);
  });

  it('forget drops what is known: a change through this instance is seen at once', async () => {
    const before = formNamed('Before');
    const after = { ...before, name: 'After' };
    const table = new Map([[before.id, before]]);
    const { cache } = cacheOver(table);
    expect(await cache.find(before.id)).toBe(before);
    table.set(before.id, after);
    cache.forget(before.id);
    expect(await cache.find(before.id)).toBe(after);
  });

  it('a read under way when forget is called is answered but not remembered', async () => {
    const form = formNamed('Changing');
    const reads: string[][] = [];
    let release: () => void = () => {};
    const cache = new FormCache(async (ids) => {
      reads.push(ids);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return [form];
    });
    const lookup = cache.find(form.id);
    // The batch starts in the check phase of this turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(1);
    cache.forget(form.id);
    release();
    expect(await lookup).toBe(form);
    const again = cache.find(form.id);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveLength(2);
    release();
    expect(await again).toBe(form);
  });
});

describe('form cache: a client inventing IDs cannot push real forms out', () => {
  it('30,000 invented IDs fill only the unknown set; the real form is still answered without a read', async () => {
    const form = formNamed('Under attack');
    const { cache, reads } = cacheOver(new Map([[form.id, form]]));
    expect(await cache.find(form.id)).toBe(form);
    const readsBefore = reads.length;
    for (let round = 0; round < 30; round++) {
      await Promise.all(Array.from({ length: 1000 }, () => cache.find(newId('frm'))));
    }
    expect(reads.length).toBeGreaterThan(readsBefore);
    const readsAfterFlood = reads.length;
    expect(await cache.find(form.id)).toBe(form);
    expect(reads).toHaveLength(readsAfterFlood);
    // Both sets stay bounded: the flood made the unknown set churn, the known set kept its form.
    expect(cache.sizes.known).toBe(1);
    expect(cache.sizes.unknown).toBeLessThanOrEqual(10_000);
    expect(cache.sizes.unknown).toBeGreaterThan(0);
  });
});
