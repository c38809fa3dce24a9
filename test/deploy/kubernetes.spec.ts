// deploy/kubernetes: every manifest valid against the Kubernetes schemas (kubernetes-models), and
// the mistakes a schema cannot see: probe paths, the security context, Secret keys that exist,
// a Service and a PodDisruptionBudget that select the Deployment's pods.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';

const dir = join(import.meta.dirname, '../../deploy/kubernetes');

// Each class validates its object against the schema of that kind and version.
const models: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
};

interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}
type Manifest = KubernetesObject & { file: string };

function loadManifests(): Manifest[] {
  const manifests: Manifest[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      expect(doc.errors, file).toEqual([]);
      manifests.push({ ...(doc.toJS() as KubernetesObject), file });
    }
  }
  return manifests;
}

const manifests = loadManifests();
function only<T>(kind: string): T & Manifest {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as T & Manifest;
}

const deployment = only<{ spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: IPodSpec } } }>('Deployment');
const job = only<{ spec: { template: { spec: IPodSpec } } }>('Job');
const secret = only<{ stringData: Record<string, string> }>('Secret');
const configMap = only<{ data: Record<string, string> }>('ConfigMap');
const podSpecs: Array<[string, IPodSpec]> = [
  ['Deployment', deployment.spec.template.spec],
  ['Job', job.spec.template.spec],
];

describe('deploy/kubernetes', () => {
  it('has every kind the deployment needs, each valid against its Kubernetes schema', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'Job', 'PodDisruptionBudget', 'Secret', 'Service'],
    );
    for (const { file, ...object } of manifests) {
      const Model = models[`${object.apiVersion}/${object.kind}`];
      expect(Model, `${file}: ${object.apiVersion} ${object.kind}`).toBeDefined();
      expect(() => new Model!(object as never).validate(), file).not.toThrow();
    }
  });

  it('the schema check catches a wrong field type (the validator is really on)', () => {
    const broken = structuredClone(deployment) as Record<string, unknown> & typeof deployment;
    (broken.spec as unknown as { replicas: unknown }).replicas = 'two';
    const { file: _file, ...object } = broken;
    expect(() => new Deployment(object as never).validate()).toThrow();
  });

  it('kustomization.yaml lists every manifest', () => {
    const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual([...new Set(manifests.map((m) => m.file))].sort());
  });

  it('probes: readiness on /readyz, liveness on /healthz, on the container port', () => {
    const container = deployment.spec.template.spec.containers[0]!;
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    const portName = container.ports?.find((p) => p.containerPort === 3000)?.name;
    expect(portName).toBeDefined();
    expect(container.readinessProbe?.httpGet?.port).toBe(portName);
    expect(container.livenessProbe?.httpGet?.port).toBe(portName);
    expect(container.env?.find((e) => e.name === 'HOST')?.value).toBe('0.0.0.0');
    expect(container.resources?.requests).toBeDefined();
    expect(container.resources?.limits?.memory).toBeDefined();
  });

  it.each(podSpecs)('%s: non-root, read-only root file system, /tmp writable', (_kind, spec) => {
    expect(spec.securityContext?.runAsNonRoot).toBe(true);
    // The image's user (Dockerfile: USER 10001:10001).
    expect(spec.securityContext?.runAsUser).toBe(10001);
    for (const container of spec.containers) {
      expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext?.capabilities?.drop).toContain('ALL');
      const mounts = new Map((container.volumeMounts ?? []).map((m) => [m.mountPath, m.name]));
      expect(mounts.has('/tmp')).toBe(true);
      for (const name of mounts.values()) expect(spec.volumes?.some((v) => v.name === name), name).toBe(true);
    }
  });

  it('the Deployment mounts a writable /data (the image volume)', () => {
    const container = deployment.spec.template.spec.containers[0]!;
    const data = container.volumeMounts?.find((m) => m.mountPath === '/data');
    expect(data).toBeDefined();
    expect(data?.readOnly).not.toBe(true);
  });

  it.each(podSpecs)('%s: every Secret and ConfigMap reference exists', (_kind, spec) => {
    const containers: IContainer[] = spec.containers;
    for (const container of containers) {
      for (const env of container.env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (!ref) continue;
        expect(ref.name).toBe(secret.metadata.name);
        if (!ref.optional) expect(Object.keys(secret.stringData), env.name).toContain(ref.key);
      }
      for (const from of container.envFrom ?? []) {
        if (from.configMapRef) expect(from.configMapRef.name).toBe(configMap.metadata.name);
        if (from.secretRef) expect(from.secretRef.name).toBe(secret.metadata.name);
      }
    }
  });

  it('PostgreSQL and Redis are given as URLs; the Job migrates with the same database', () => {
    expect(secret.stringData.DATABASE_URL).toMatch(/^postgres:\/\//);
    expect(secret.stringData.REDIS_URL).toMatch(/^redis:\/\//);
    const migrate = job.spec.template.spec.containers[0]!;
    expect(migrate.command).toEqual(['formgate', 'migrate']);
    expect(migrate.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef?.key).toBe('DATABASE_URL');
    expect(job.spec.template.spec.restartPolicy).toMatch(/^(OnFailure|Never)$/);
  });

  it('Service, PodDisruptionBudget and Ingress reach the Deployment', () => {
    const podLabels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(expect.objectContaining(deployment.spec.selector.matchLabels));
    for (const [key, value] of Object.entries(deployment.spec.selector.matchLabels)) expect(podLabels[key]).toBe(value);

    const service = only<{ spec: { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string | number }> } }>('Service');
    for (const [key, value] of Object.entries(service.spec.selector)) expect(podLabels[key], key).toBe(value);
    const containerPorts = deployment.spec.template.spec.containers[0]!.ports!.map((p) => p.name);
    for (const port of service.spec.ports) expect(containerPorts).toContain(port.targetPort);

    const pdb = only<{ spec: { selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget');
    for (const [key, value] of Object.entries(pdb.spec.selector.matchLabels)) expect(podLabels[key], key).toBe(value);

    const ingress = only<{ spec: { rules: Array<{ http: { paths: Array<{ backend: { service: { name: string; port: { name?: string } } } }> } }> } }>('Ingress');
    for (const rule of ingress.spec.rules) {
      for (const path of rule.http.paths) {
        expect(path.backend.service.name).toBe(service.metadata.name);
        expect(service.spec.ports.map((p) => p.name)).toContain(path.backend.service.port.name);
      }
    }

    const hpa = only<{ spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number } }>('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('SIGTERM gets time: the grace period exceeds SHUTDOWN_TIMEOUT_MS plus the close', () => {
    const shutdownMs = Number(configMap.data.SHUTDOWN_TIMEOUT_MS ?? 10_000);
    // server.ts: SHUTDOWN_TIMEOUT_MS for requests, then up to 5 s for the database to close.
    expect((deployment.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(shutdownMs + 5000);
  });
});
