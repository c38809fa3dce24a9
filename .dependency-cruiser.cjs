/**
 * The import rules, checked by test/architecture/layers.spec.ts over the whole repository: the
 * layer rule (docs/architecture.md, "Layers") for src/, and no cycle between modules anywhere.
 * Feature folders: every folder under src/ except the lower layers (lib, db, http) and the
 * shared leaves (types, startup). src/app.ts, src/services.ts, src/server.ts and src/start-server.ts are the
 * composition root and may import anything.
 */
const LOWER = 'lib|db|http';
const NOT_FEATURE = `${LOWER}|types|startup|i18n`;
const FEATURE = `^src/(?!(?:${NOT_FEATURE})/)[^/]+/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lower-layer-imports-feature',
      comment: 'src/lib, src/db and src/http import no feature folder and not the composition root.',
      severity: 'error',
      from: { path: `^src/(${LOWER})/` },
      to: { path: [FEATURE, '^src/(app|services|server|start-server)\\.ts$'] },
    },
    {
      name: 'feature-imports-ui-or-cli',
      comment: 'No feature imports src/dashboard or src/cli (they sit on top, beside the composition root).',
      severity: 'error',
      from: { path: FEATURE, pathNot: '^src/(dashboard|cli)/' },
      to: { path: '^src/(dashboard|cli)/' },
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
        '^src/db/migrations/',
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
