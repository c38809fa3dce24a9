import { defineConfig } from 'vitest/config';

// The whole suite runs twice: once on SQLite, once on a real PostgreSQL (TEST_DATABASE_URL).
const EXCLUDE = ['test/reliability/long/**', 'node_modules/**'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: EXCLUDE,
    pool: 'forks',
    // Creates the test database when missing; stops at once when PostgreSQL or Redis is not running.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      // Files named *.postgres.test.ts test what only PostgreSQL has; they run in that project alone.
      { extends: true, test: { name: 'sqlite', env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: [...EXCLUDE, '**/*.postgres.test.ts'] } },
      { extends: true, test: { name: 'postgres', env: { FORMGATE_TEST_DB: 'postgres' } } },
    ],
  },
});
