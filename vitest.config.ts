import { defineConfig } from 'vitest/config';

// The whole suite runs twice: once on SQLite, once on a real PostgreSQL (TEST_DATABASE_URL).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/long/**', 'node_modules/**'],
    pool: 'forks',
    // Creates the test database when missing; stops at once when PostgreSQL or Redis is not running.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'sqlite', env: { FORMGATE_TEST_DB: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', env: { FORMGATE_TEST_DB: 'postgres' } } },
    ],
  },
});
