import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { compiledProduct, compiledSource } from './test/helpers/compiled-source.js';

// `npm test`: fast specs (*.spec.ts) run once; integration tests (*.test.ts) run twice, on SQLite
// and on a real PostgreSQL. The browser, child-process, reliability, package and container tests
// are `npm run test:e2e` (e2e/run.sh).
const SPECS = ['test/**/*.spec.ts', 'client/test/**/*.spec.ts'];
const TESTS = ['test/**/*.test.ts', 'client/test/**/*.test.ts'];

// What only the database projects need: the compiled product and the run's services.
const integration = {
  plugins: [compiledSource()],
  server: { deps: { external: [compiledProduct] } },
  // Builds dist/ when a source changed; migrates each database once into a template that every
  // file copies; starts the suite's own PostgreSQL cluster unless TEST_DATABASE_URL names one;
  // stops at once when PostgreSQL, Redis or clamd is not there.
  globalSetup: ['test/helpers/global-setup.ts'],
};

export default defineConfig({
  test: {
    pool: 'forks',
    // A worker process runs file after file: the compiled product, loaded natively, is imported
    // once per worker instead of once per file (~1 s of CPU a file). Test files and helpers are
    // still evaluated afresh for each file; each file builds its own app over its own database
    // and closes it.
    isolate: false,
    // The files spend much of their time waiting on databases and sockets, not on the CPU: one
    // more than the cores keeps both cores busy. As many workers from the start: a pool that
    // shrinks ends an idle worker that a shared process may still need ("Terminating worker").
    maxWorkers: Math.max(availableParallelism() + 1, 3),
    minWorkers: Math.max(availableParallelism() + 1, 3),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      // The specs need no database, no service and no build: they import the TypeScript sources
      // through vite, so `npm run test:unit` runs on a fresh checkout.
      { extends: true, test: { name: 'unit', include: SPECS } },
      // Files named *.postgres.test.ts test what only PostgreSQL has, *.sqlite.test.ts what only
      // SQLite has; each runs in that project alone.
      {
        extends: true,
        plugins: integration.plugins,
        test: { name: 'sqlite', include: TESTS, env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: ['**/*.postgres.test.ts', 'node_modules/**'], server: integration.server, globalSetup: integration.globalSetup },
      },
      {
        extends: true,
        plugins: integration.plugins,
        test: { name: 'postgres', include: TESTS, env: { FORMGATE_TEST_DB: 'postgres' }, exclude: ['**/*.sqlite.test.ts', 'node_modules/**'], server: integration.server, globalSetup: integration.globalSetup },
      },
    ],
  },
});
