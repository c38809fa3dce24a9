import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { compiledProduct, compiledSource } from '../test/helpers/compiled-source.js';

// `npm run test:e2e` (e2e/run.sh) runs this first: what needs a whole program or a browser —
// Chromium journeys, the CLI and the server as child processes — on SQLite and on PostgreSQL.
// The crash, flood and fault cases follow with vitest.reliability.config.ts, one file at a time.
const TESTS = ['e2e/browser/**/*.test.ts', 'e2e/cli/**/*.test.ts', 'e2e/process/**/*.test.ts'];

// Each browser journey runs on one database, half of them on each (by time: ~170 s a side): a
// page is the same HTML whichever database answers, every dashboard route runs on both in
// `npm test` (inject); every journey on both would add ~340 s of the workers' time. The CLI and
// the process tests run on both: what they start talks to the database itself.
const BROWSER_ON_POSTGRES = ['appearance', 'dashboard', 'time-zone', 'visitor', 'integrations', 'inbox', 'password-reset', 'deliveries', 'submit', 'every-page'].map(
  (name) => `e2e/browser/${name}.test.ts`,
);

// Files whose cases bring their own database or none (start-up failures): once, on SQLite.
const ONCE = ['e2e/process/startup-failures.test.ts'];

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [compiledSource()],
  test: {
    server: { deps: { external: [compiledProduct] } },
    pool: 'forks',
    // Three at a time on 2 cores: six (and one process for several files) made pages and child
    // processes miss their waits. A journey that walks eight pages through axe-core takes 15 s
    // alone and over 30 s beside two other workers, hence the 90 s.
    maxWorkers: 3,
    minWorkers: 3,
    // As in `npm test`: a worker imports the compiled product and the helpers once and runs file
    // after file, instead of importing them again for each file.
    isolate: false,
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: TESTS, env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: ['**/*.postgres.test.ts', 'node_modules/**', ...BROWSER_ON_POSTGRES] } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...TESTS.filter((glob) => !glob.startsWith('e2e/browser/')), ...BROWSER_ON_POSTGRES],
          env: { FORMGATE_TEST_DB: 'postgres' },
          exclude: ['**/*.sqlite.test.ts', 'node_modules/**', ...ONCE],
        },
      },
    ],
  },
});
