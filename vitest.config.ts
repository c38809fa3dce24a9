import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// `npm test`: fast specs (*.spec.ts, no database) run once; integration tests (*.test.ts) run
// twice, on SQLite and on a real PostgreSQL. The browser, child-process, reliability, package
// and container tests are `npm run test:e2e` (vitest.e2e.config.ts).
const SPECS = ['test/**/*.spec.ts', 'client/test/**/*.spec.ts'];
const TESTS = ['test/**/*.test.ts', 'client/test/**/*.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // The files spend much of their time waiting on databases and sockets, not on the CPU: one
    // more than the cores keeps both cores busy.
    maxWorkers: Math.max(availableParallelism() + 1, 3),
    // Migrates each database once into a template that every file copies; starts the suite's own
    // PostgreSQL cluster unless TEST_DATABASE_URL names one; stops at once when PostgreSQL or
    // Redis is not there.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: SPECS } },
      // Files named *.postgres.test.ts test what only PostgreSQL has, *.sqlite.test.ts what only
      // SQLite has; each runs in that project alone.
      { extends: true, test: { name: 'sqlite', include: TESTS, env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: ['**/*.postgres.test.ts', 'node_modules/**'] } },
      { extends: true, test: { name: 'postgres', include: TESTS, env: { FORMGATE_TEST_DB: 'postgres' }, exclude: ['**/*.sqlite.test.ts', 'node_modules/**'] } },
    ],
  },
});
