import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { compiledProduct, compiledSource } from '../test/helpers/compiled-source.js';

// The long crash, shutdown, flood and fault cases (e2e/reliability/), one file at a time: each
// loads the machine on purpose, and two at once would measure each other.
const TESTS = ['e2e/reliability/**/*.test.ts'];

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [compiledSource()],
  test: {
    server: { deps: { external: [compiledProduct] } },
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: TESTS, env: { FORMGATE_TEST_DB: 'sqlite' }, exclude: ['**/*.postgres.test.ts', 'node_modules/**'] } },
      { extends: true, test: { name: 'postgres', include: TESTS, env: { FORMGATE_TEST_DB: 'postgres' }, exclude: ['**/*.sqlite.test.ts', 'node_modules/**'] } },
    ],
  },
});
