import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The whole suite runs twice: once on SQLite, once on a real PostgreSQL (TEST_DATABASE_URL).
const EXCLUDE = ['test/reliability/long/**', 'node_modules/**'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: EXCLUDE,
    pool: 'forks',
    // Vitest's default is one file at a time on two cores (cores − 1). The files spend most of
    // their time waiting on servers, browsers, child processes and databases, not on the CPU:
    // three at a time took the suite from ~19 to ~10 minutes on a slow 2-core machine.
    maxWorkers: Math.max(availableParallelism() - 1, 3),
    // Creates the test database when missing; stops at once when PostgreSQL or Redis is not running.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      // Files named *.postgres.test.ts test what only PostgreSQL has, *.sqlite.test.ts what only
      // SQLite has; each runs in that project alone.
      { extends: true, test: { name: 'sqlite', env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: [...EXCLUDE, '**/*.postgres.test.ts'] } },
      { extends: true, test: { name: 'postgres', env: { FORMGATE_TEST_DB: 'postgres' }, exclude: [...EXCLUDE, '**/*.sqlite.test.ts'] } },
    ],
  },
});
