// deploy/helm/formgate without a helm binary: Chart.yaml and values.yaml parse and say what they
// must, every `.Values.…` a template reads is defined in values.yaml, and the templates carry what
// docs/deploy.md promises (probes, Secret keys, optional PodDisruptionBudget and autoscaler).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const chartDir = join(import.meta.dirname, '../../deploy/helm/formgate');
const read = (path: string) => readFileSync(join(chartDir, path), 'utf8');
const templates = Object.fromEntries(
  readdirSync(join(chartDir, 'templates')).map((file) => [file, read(join('templates', file))]),
);
const values = parse(read('values.yaml')) as Record<string, unknown>;
const packageVersion = (JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;

/** Every `.Values.a.b.c` in a template text, as the path ['a', 'b', 'c']. */
function valuePaths(text: string): string[][] {
  return [...text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => m[1]!.slice(1).split('.'));
}

function lookup(path: string[]): unknown {
  let node: unknown = values;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

describe('deploy/helm/formgate', () => {
  it('Chart.yaml is a v2 application chart whose appVersion is the package version', () => {
    const chart = parse(read('Chart.yaml')) as Record<string, string>;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'formgate', type: 'application', appVersion: packageVersion });
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('every .Values path a template reads exists in values.yaml', () => {
    const missing: string[] = [];
    let seen = 0;
    for (const [file, text] of Object.entries(templates)) {
      for (const path of valuePaths(text)) {
        seen += 1;
        if (lookup(path) === undefined) missing.push(`${file}: .Values.${path.join('.')}`);
      }
    }
    expect(seen).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('the value check finds a path that is not there', () => {
    expect(valuePaths('{{ .Values.ingress.hots }}').map(lookup)).toEqual([undefined]);
  });

  it('the Deployment probes /readyz and /healthz and runs non-root on a read-only root', () => {
    const deployment = templates['deployment.yaml']!;
    expect(deployment).toMatch(/readinessProbe:\s+httpGet:\s+path: \/readyz/);
    expect(deployment).toMatch(/livenessProbe:\s+httpGet:\s+path: \/healthz/);
    const helpers = templates['_helpers.tpl']!;
    expect(helpers).toContain('runAsNonRoot: true');
    expect(helpers).toContain('readOnlyRootFilesystem: true');
    expect(deployment).toContain('include "formgate.podSecurityContext"');
    expect(deployment).toContain('include "formgate.containerSecurityContext"');
    expect(deployment).toMatch(/mountPath: \/data/);
    expect(deployment).toMatch(/mountPath: \/tmp/);
  });

  it('the Secret holds DATABASE_URL, REDIS_URL, SMTP_URL and ADMIN_PASSWORD; the pods read them as files', () => {
    const secret = templates['secret.yaml']!;
    const written = [...secret.matchAll(/^\s+([A-Z_]+): \{\{/gm)].map((m) => m[1]);
    expect(written.sort()).toEqual(['ADMIN_PASSWORD', 'DATABASE_URL', 'REDIS_URL', 'SMTP_URL']);
    const helpers = templates['_helpers.tpl']!;
    const keys = /DATABASE_URL REDIS_URL.*$/m.exec(helpers)?.[0] ?? '';
    for (const key of written) expect(keys, key).toContain(key);
    expect(helpers).toContain('- name: {{ $key }}_FILE');
    expect(helpers).toContain('value: /run/secrets/formgate/{{ $key }}');
    for (const file of ['deployment.yaml', 'migrate-job.yaml']) {
      const text = templates[file]!;
      // No secret in an environment variable: every one is a file of the Secret volume.
      expect(text, file).not.toContain('secretKeyRef');
      expect(text, file).toMatch(/- name: secrets\s+mountPath: \/run\/secrets\/formgate\s+readOnly: true/);
      expect(text, file).toMatch(/- name: secrets\s+secret:\s+secretName: \{\{ include "formgate.secretName" \. \}\}/);
    }
    expect(templates['deployment.yaml']).toContain('include "formgate.secretFileEnv" .');
    expect(templates['deployment.yaml']).toMatch(/with \.Values\.admin\.email[\s\S]*- name: ADMIN_EMAIL/);
    expect(templates['migrate-job.yaml']).toContain('value: /run/secrets/formgate/DATABASE_URL');
    expect(values.databaseUrl).toMatch(/^postgres:\/\//);
    expect(values.redisUrl).toMatch(/^redis:\/\//);
    // Never a default password.
    expect(values.admin).toEqual({ email: '', password: '' });
  });

  it('PodDisruptionBudget and autoscaler are optional; the migration runs as a pre-install/upgrade hook', () => {
    expect(templates['pdb.yaml']).toMatch(/^\{\{- if \.Values\.podDisruptionBudget\.enabled \}\}/);
    expect(templates['hpa.yaml']).toMatch(/^\{\{- if \.Values\.autoscaling\.enabled \}\}/);
    expect(typeof lookup(['podDisruptionBudget', 'enabled'])).toBe('boolean');
    expect(typeof lookup(['autoscaling', 'enabled'])).toBe('boolean');
    expect(templates['migrate-job.yaml']).toContain('helm.sh/hook: pre-install,pre-upgrade');
    expect(templates['migrate-job.yaml']).toContain('command: ["formgate", "migrate"]');
  });

  it('the Secret the migration hook reads exists before it: a hook of lower weight', () => {
    const hookWeight = (text: string) => Number(/helm\.sh\/hook-weight: "(-?\d+)"/.exec(text)?.[1]);
    const secret = templates['secret.yaml']!;
    const job = templates['migrate-job.yaml']!;
    expect(secret).toContain('helm.sh/hook: pre-install,pre-upgrade');
    expect(hookWeight(secret)).toBeLessThan(hookWeight(job));
  });

  it('template actions are balanced (an unclosed if or range would fail helm install)', () => {
    for (const [file, text] of Object.entries(templates)) {
      const opened = (text.match(/\{\{-?\s*(if|range|with|define)\b/g) ?? []).length;
      const closed = (text.match(/\{\{-?\s*end\s*-?\}\}/g) ?? []).length;
      expect(closed, file).toBe(opened);
    }
  });
});
