import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientScriptOf } from '../../src/features/client-script/client-script.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { buildTestApp, type AppUnderTest, type TestAppOptions } from './app.js';
import type { TestDatabase } from './database.js';

/** What a spec's app serves as the browser script: specs run with no build. */
export const STAND_IN_CLIENT_SCRIPT = clientScriptOf(Buffer.from('/* the browser script stands in here */\n'));

/**
 * The app for a route spec (the unit tier): over a SQLite file of its own, migrated here rather
 * than copied from the suite's template, serving a stand-in browser script. It needs no build, no
 * database server and no Redis, and never listens: requests go through `t.fetch` (inject).
 */
export async function buildSpecApp(options: Omit<TestAppOptions, 'baseUrlIsOwnAddress' | 'database' | 'clientScript'> = {}): Promise<AppUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'formgate-spec-'));
  const url = `sqlite:${join(dir, 'formgate.db')}`;
  const database: TestDatabase = {
    url,
    dialect: 'sqlite',
    open: (openOptions) => createDatabase(url, openOptions),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
  try {
    const t = await buildTestApp({ ...options, database, clientScript: STAND_IN_CLIENT_SCRIPT });
    return {
      ...t,
      close: async () => {
        try {
          await t.close();
        } finally {
          await database.drop();
        }
      },
    };
  } catch (err) {
    await database.drop();
    throw err;
  }
}
