// compose.yaml and compose.postgres.yaml as Docker Compose reads them. compose.yaml also runs for
// real in e2e/container/run.sh; compose.postgres.yaml needs registry images (postgres, redis,
// caddy), so its structure is checked here: the migration once before two replicas, health
// checks, restart policies, TRUST_PROXY naming the proxy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '../..');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  restart?: string;
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string | null> | string[];
  depends_on?: Record<string, { condition: string }>;
  secrets?: string[];
  healthcheck?: { test: string[] };
  networks?: string[] | Record<string, { ipv4_address?: string }>;
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: Array<{ subnet: string }> } }>;
  secrets?: Record<string, { file?: string }>;
}

// merge: the `<<: *formgate` of the replicas (YAML merge keys, which Compose supports).
const load = (file: string) => parse(readFileSync(join(root, file), 'utf8'), { merge: true }) as ComposeFile;

/** The environment as a map; a bare name (passed through from .env or the shell) maps to null. */
function environment(service: Service): Record<string, string | null> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry) => {
    const at = entry.indexOf('=');
    return at === -1 ? [entry, null] : [entry.slice(0, at), entry.slice(at + 1)];
  }));
}

const settings = [...readFileSync(join(root, '.env.example'), 'utf8').matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]!);
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1]);

describe('compose.yaml', () => {
  const compose = load('compose.yaml');
  const formgate = compose.services.formgate!;

  it('runs one Formgate, built from this repository, on SQLite in a named volume', () => {
    expect(Object.keys(compose.services)).toEqual(['formgate']);
    expect(formgate.build).toBe('.');
    expect(formgate.restart).toBe('unless-stopped');
    const dataVolume = formgate.volumes?.find((v) => v.endsWith(':/data'))?.split(':')[0];
    expect(dataVolume).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(dataVolume);
    expect(environment(formgate).DATABASE_URL).toBe('${DATABASE_URL:-sqlite:/data/formgate.db}');
    expect(environment(formgate).HOST).toBe('0.0.0.0');
    expect(formgate.ports).toEqual(['${FORMGATE_PORT:-3000}:3000']);
  });

  it('passes every setting of .env.example through from .env or the shell', () => {
    const env = environment(formgate);
    for (const name of settings) expect(Object.keys(env), name).toContain(name);
    for (const [name, value] of Object.entries(env)) {
      if (!['PORT', 'HOST', 'DATABASE_URL'].includes(name)) expect(value, name).toBeNull();
    }
  });

  it('gives SIGTERM more time than SHUTDOWN_TIMEOUT_MS', () => {
    expect(seconds(formgate.stop_grace_period ?? '10s')).toBeGreaterThan(10 + 5);
  });
});

describe('compose.postgres.yaml', () => {
  const compose = load('compose.postgres.yaml');
  const { services } = compose;
  const replicas = ['formgate-1', 'formgate-2'];

  it('has PostgreSQL, Redis, a one-shot migration, two replicas and a proxy', () => {
    expect(Object.keys(services).sort()).toEqual(['formgate-1', 'formgate-2', 'migrate', 'postgres', 'proxy', 'redis']);
    expect(services.migrate!.command).toEqual(['formgate', 'migrate']);
    expect(services.migrate!.restart).toBe('no');
    expect(services.migrate!.depends_on?.postgres?.condition).toBe('service_healthy');
  });

  it('starts the replicas only after the migration succeeded and Redis is healthy', () => {
    for (const name of replicas) {
      const replica = services[name]!;
      expect(replica.depends_on?.migrate?.condition, name).toBe('service_completed_successfully');
      expect(replica.depends_on?.redis?.condition, name).toBe('service_healthy');
      expect(replica.image).toBe(services.migrate!.image);
    }
  });

  it('points the replicas at PostgreSQL and Redis, the same database as the migration', () => {
    for (const name of replicas) {
      const env = environment(services[name]!);
      expect(env.DATABASE_URL_FILE).toBe(environment(services.migrate!).DATABASE_URL_FILE);
      expect(env.REDIS_URL).toBe('redis://redis:6379');
      expect(env.HOST).toBe('0.0.0.0');
    }
  });

  it('hands every secret over as a file, never in the environment, and makes the first admin from them', () => {
    const mounted = (service: Service, file: string | null | undefined) => {
      const name = /^\/run\/secrets\/([a-z_]+)$/.exec(file ?? '')?.[1];
      expect(name, file ?? 'unset').toBeDefined();
      expect(service.secrets).toContain(name);
      expect(compose.secrets?.[name!]?.file).toBe(`./secrets/${name}`);
    };
    for (const name of [...replicas, 'migrate']) {
      const env = environment(services[name]!);
      expect(env.DATABASE_URL, name).toBeUndefined();
      mounted(services[name]!, env.DATABASE_URL_FILE);
    }
    for (const name of replicas) {
      const env = environment(services[name]!);
      expect(env.ADMIN_EMAIL).toBe('${ADMIN_EMAIL:?set ADMIN_EMAIL}');
      expect(env.ADMIN_PASSWORD).toBeUndefined();
      mounted(services[name]!, env.ADMIN_PASSWORD_FILE);
    }
    const postgres = environment(services.postgres!);
    expect(postgres.POSTGRES_PASSWORD).toBeUndefined();
    mounted(services.postgres!, postgres.POSTGRES_PASSWORD_FILE);
  });

  it('sets TRUST_PROXY to the proxy, whose address is fixed on the network', () => {
    const proxyNetworks = services.proxy!.networks as Record<string, { ipv4_address?: string }>;
    const [network, { ipv4_address: proxyAddress } = {}] = Object.entries(proxyNetworks)[0]!;
    expect(proxyAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const subnet = compose.networks?.[network]?.ipam?.config?.[0]?.subnet;
    expect(subnet?.split('/')[0]?.split('.').slice(0, 3)).toEqual(proxyAddress!.split('.').slice(0, 3));
    for (const name of replicas) {
      expect(environment(services[name]!).TRUST_PROXY, name).toBe(proxyAddress);
      expect(services[name]!.networks, name).toEqual([network]);
    }
  });

  it('balances over both replicas through the Caddyfile it mounts', () => {
    const mount = services.proxy!.volumes?.find((v) => v.includes('/etc/caddy/Caddyfile'));
    const caddyfile = readFileSync(join(root, mount!.split(':')[0]!), 'utf8');
    for (const name of replicas) expect(caddyfile).toContain(`${name}:3000`);
    expect(caddyfile).toContain('health_uri /readyz');
    expect(services.proxy!.ports?.[0]).toMatch(/:80$/);
    for (const name of replicas) expect(services.proxy!.depends_on?.[name]?.condition).toBe('service_healthy');
  });

  it('has health checks and restart policies on every long-running service', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'migrate') continue;
      expect(service.restart, name).toBe('unless-stopped');
      if (name !== 'proxy') expect(service.healthcheck?.test, name).toBeDefined();
    }
    for (const name of replicas) expect(services[name]!.healthcheck!.test.join(' ')).toContain('/readyz');
    for (const volume of (services.postgres!.volumes ?? []).map((v) => v.split(':')[0]!)) {
      expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    }
  });
});
