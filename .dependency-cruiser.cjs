/**
 * The layer rule (docs/architecture.md, "Layers"), checked by test/architecture/layers.test.ts.
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
      comment: 'No cycles between modules (folder cycles are checked on the collapsed graph, see the test).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/migrations/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
