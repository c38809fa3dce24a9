/**
 * The layer rule (docs/architecture.md, "Layers"), checked by test/architecture/layers.spec.ts.
 * src/ holds three layers under the composition root: src/frontends/ (dashboard, CLI, MCP) on
 * top, src/features/ (one folder per part of the domain) in the middle, src/platform/ (database,
 * HTTP, helpers, configuration) at the bottom. src/app.ts, src/services.ts, src/server.ts and
 * src/start-server.ts build the app and may import anything. No cycle between modules anywhere in
 * the repository (product, tests, e2e, bench, scripts, client).
 */
const ROOT_FILES = '^src/(app|services|server|start-server)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-up',
      comment: 'src/platform imports no feature, no front end and not the composition root.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: ['^src/(features|frontends)/', ROOT_FILES] },
    },
    {
      name: 'feature-imports-front-end',
      comment: 'No feature imports a front end (dashboard, CLI, MCP) or the composition root.',
      severity: 'error',
      from: { path: '^src/features/' },
      to: { path: ['^src/frontends/', ROOT_FILES] },
    },
    {
      name: 'feature-skips-service',
      comment: "A feature reaches another only through its *.service.ts and *.types.ts; the rest of a folder is its own ($1: the importing feature).",
      severity: 'error',
      from: { path: '^src/features/([^/]+)/' },
      to: { path: '^src/features/([^/]+)/', pathNot: ['^src/features/$1/', '\\.(service|types)\\.ts$'] },
    },
    {
      name: 'front-end-skips-service',
      comment: "Front ends call a feature's service, never its repository.",
      severity: 'error',
      from: { path: '^src/frontends/' },
      to: { path: '^src/features/.*\\.repository\\.ts$' },
    },
    {
      name: 'no-circular',
      comment:
        'No module reaches itself through its imports, in any folder (product, tests, e2e, bench, scripts, client). ' +
        'A type-only import and a dynamic import() count: either still ties the two files together. ' +
        'Folder cycles in src/ are checked on the collapsed graph, see the test.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: {
      path: [
        '^src/platform/db/migrations/',
        // The deliberate violations the test cruises on their own.
        '^test/architecture/fixture/',
        // Installed packages, build output, and what .gitignore keeps out of the repository.
        '(^|/)(node_modules|dist)/',
        '^[.]',
        '^(coverage|data|test-results|secrets|bench/results)/',
      ],
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
