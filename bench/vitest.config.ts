import { defineConfig } from 'vitest/config';

// The bench tools' own tests. They run the bench's scripts against the product's build (dist/) and
// PostgreSQL at TEST_DATABASE_URL; bench:pair's runs on SQLite and on PostgreSQL within its file.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time, whatever the cores (Vitest's default is one on two cores): much of a
    // file's time is one process starting (tsx compiling, a server migrating), which the other file
    // fills in; every assertion holds with the cores shared.
    maxWorkers: 2,
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
