import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

// The layer rule of docs/architecture.md ("Layers") and no module cycle anywhere: the rules live in
// .dependency-cruiser.cjs; cycles between src/ folders are found here on the folder graph, which
// the tool does not validate.
const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixture/', import.meta.url));

/**
 * Every file under `baseDir` but what the configuration excludes (installed packages, build
 * output), so that a folder added later is checked without being named here.
 */
async function cruiseAll(baseDir: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(`${root}.dependency-cruiser.cjs`);
  const tsConfig = extractTSConfig(`${root}tsconfig.json`);
  const output = await cruise(['.'], { ...options, baseDir, validate: true, outputType: 'json' }, {}, { tsConfig });
  return typeof output.output === 'string' ? (JSON.parse(output.output) as ICruiseResult) : output.output;
}

/** A part of src/: a front end, a feature or a platform folder (`features/forms`), or a root file. */
const folderOf = (path: string): string => /^src\/((?:features|frontends|platform)\/[^/]+)\//.exec(path)?.[1] ?? path;

/** Folders that reach each other through imports (strongly connected components of size > 1). */
function folderCycles(result: ICruiseResult): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const module of result.modules) {
    if (!module.source.startsWith('src/')) continue;
    const from = folderOf(module.source);
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (!dependency.resolved.startsWith('src/') || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  const reaches = (from: string, target: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === target) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(edges.get(next) ?? []));
    }
    return false;
  };
  const cycles = new Map<string, string[]>();
  for (const [from, tos] of edges) {
    for (const to of tos) {
      if (!reaches(to, from)) continue;
      const pair = [from, to].sort();
      cycles.set(pair.join('|'), pair);
    }
  }
  return [...cycles.values()];
}

const violations = (result: ICruiseResult) =>
  result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

/** The repository's top folders the cruise went through. */
const topFolders = (result: ICruiseResult) =>
  new Set(result.modules.filter((module) => !module.coreModule).flatMap((module) => /^([^/]+)\//.exec(module.source)?.[1] ?? []));

// Cruising the whole tree takes seconds, and more beside the rest of the suite.
describe('layers', { timeout: 120_000 }, () => {
  it('no import runs up a layer, no module imports itself back, and no src/ folders import each other', async () => {
    const result = await cruiseAll(root);
    // Each folder that holds code: one left out would have its cycles unchecked.
    expect([...topFolders(result)].sort()).toEqual(['bench', 'bin', 'client', 'e2e', 'scripts', 'src', 'test']);
    expect(result.summary.totalCruised).toBeGreaterThan(500);
    expect(violations(result)).toEqual([]);
    expect(folderCycles(result)).toEqual([]);
  });

  it('reports the platform importing a feature, a feature importing a front end or another past its service and types, a front end reading a repository, a module cycle outside src/, and a folder cycle', async () => {
    const result = await cruiseAll(fixture);
    expect(violations(result).sort()).toEqual([
      'feature-imports-front-end: src/features/forms/form.ts → src/frontends/dashboard/page.ts',
      'feature-skips-service: src/features/gamma/gamma.service.ts → src/features/beta/beta.repository.ts',
      'front-end-skips-service: src/frontends/dashboard/list.ts → src/features/beta/beta.repository.ts',
      'no-circular: scripts/tool.main.ts → scripts/tool.ts',
      'platform-imports-up: src/platform/lib/bad.ts → src/features/forms/form.ts',
    ]);
    expect(folderCycles(result)).toEqual([['features/alpha', 'features/beta']]);
  });
});
