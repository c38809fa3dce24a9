import { defineConfig } from 'vitest/config';

// The long crash, shutdown and flood cases: `npm run test:reliability` (also run by .ci/run).
const EXCLUDE = ['node_modules/**'];

export default defineConfig({
  test: {
    include: ['test/reliability/long/**/*.test.ts'],
    pool: 'forks',
    // Creates the test database when missing; stops at once when PostgreSQL or Redis is not running.
    globalSetup: ['test/helpers/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
    projects: [
      // Files named *.postgres.test.ts test what only PostgreSQL has, *.sqlite.test.ts what only
      // SQLite has; each runs in that project alone.
      { extends: true, test: { name: 'sqlite', env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: [...EXCLUDE, '**/*.postgres.test.ts'] } },
      { extends: true, test: { name: 'postgres', env: { FORMGATE_TEST_DB: 'postgres' }, exclude: [...EXCLUDE, '**/*.sqlite.test.ts'] } },
    ],
  },
});
