import { describe, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { useMigratedDatabase } from '../helpers/factories.js';
import { checkOrdering } from '../helpers/ordering.js';

describe('ordering is bytewise on both databases', () => {
  let handle: DatabaseHandle;
  useMigratedDatabase((opened) => ({ handle } = opened));

  it('ties in one millisecond and IDs differing only in case or punctuation come back in byte order', async () => {
    await checkOrdering(handle);
  });
});

