import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { freePort } from './free-port.js';
import { findPostgresBinaries, startSuiteCluster, type SuiteCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The maintenance database of the run's PostgreSQL server. */
    postgresAdminUrl: string;
    /** A database migrated once for the run; test files copy it (CREATE DATABASE … TEMPLATE). */
    postgresTemplateDatabase: string;
    /** A SQLite file migrated once for the run; test files copy it. */
    sqliteTemplateFile: string;
  }
}

interface RunResources {
  postgresAdminUrl: string;
  postgresTemplateDatabase: string;
  sqliteTemplateFile: string;
  release(): Promise<void>;
}

/**
 * Runs before the suite: PostgreSQL and Redis must answer (else one line says what to start,
 * and the run stops); the browser client is rebuilt when its sources changed; each database is
 * migrated once into a template that every test file copies, instead of every file running
 * every migration. A run of the specs alone (`--project unit`) uses no database or service: it
 * checks, starts and migrates none, and so loads no database driver (scripts/test-on-node.sh runs
 * the specs on a Node.js that has no better-sqlite3 compiled for it).
 *
 * PostgreSQL is the server at TEST_DATABASE_URL when that is set; otherwise a cluster of the
 * suite's own with fsync off (./postgres-cluster.ts), where the machine has PostgreSQL's server
 * binaries; otherwise postgres://postgres@127.0.0.1:5432. Each project of the run calls this; they
 * share one set of resources, released after the last of them ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = globalThis as { formgateTestRun?: { resources: Promise<RunResources>; users: number } };
  if (!shared.formgateTestRun) {
    const specsAlone = project.vitest.projects.every((running) => running.name === 'unit');
    shared.formgateTestRun = { resources: specsAlone ? prepareSpecsRun() : prepareRun(), users: 0 };
  }
  const run = shared.formgateTestRun;
  run.users += 1;
  const resources = await run.resources;
  project.provide('postgresAdminUrl', resources.postgresAdminUrl);
  project.provide('postgresTemplateDatabase', resources.postgresTemplateDatabase);
  project.provide('sqliteTemplateFile', resources.sqliteTemplateFile);
  return async () => {
    run.users -= 1;
    if (run.users === 0) {
      delete shared.formgateTestRun;
      await resources.release();
    }
  };
}

/** Tests load the compiled product (./compiled-source.ts) and the served browser script. */
function buildIfStale(): void {
  execFileSync(process.execPath, [new URL('../../scripts/build-if-stale.mjs', import.meta.url).pathname], { stdio: 'inherit' });
}

/** The specs' run: the build alone. A spec that reached for a database would find no URL and fail. */
async function prepareSpecsRun(): Promise<RunResources> {
  buildIfStale();
  return { postgresAdminUrl: '', postgresTemplateDatabase: '', sqliteTemplateFile: '', release: async () => {} };
}

async function prepareRun(): Promise<RunResources> {
  buildIfStale();
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  let cluster: SuiteCluster | undefined;
  let postgresUrl = process.env.TEST_DATABASE_URL;
  if (!postgresUrl) {
    const bin = findPostgresBinaries();
    if (bin) {
      cluster = startSuiteCluster(bin, await freePort());
      postgresUrl = cluster.url;
    } else {
      postgresUrl = 'postgres://postgres@127.0.0.1:5432/formgate_test';
    }
  }
  const problems = [await ensurePostgres(postgresUrl), await checkRedis(redisUrl), checkClamd()].filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    cluster?.stop();
    process.stderr.write(`\nThe test suite needs these running first: ${problems.join('; ')}.\n\n`);
    process.exit(1);
  }
  const postgresTemplateDatabase = `formgate_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(postgresUrl, `create database ${postgresTemplateDatabase} template template0`);
  const templateUrl = new URL(postgresUrl);
  templateUrl.pathname = `/${postgresTemplateDatabase}`;
  const sqliteDir = mkdtempSync(join(tmpdir(), 'formgate-template-'));
  const sqliteTemplateFile = join(sqliteDir, 'formgate.db');
  await Promise.all([migrateOnce(templateUrl.href), migrateOnce(`sqlite:${sqliteTemplateFile}`)]);
  return {
    postgresAdminUrl: postgresUrl,
    postgresTemplateDatabase,
    sqliteTemplateFile,
    release: async () => {
      rmSync(sqliteDir, { recursive: true, force: true });
      if (cluster) {
        cluster.stop();
        return;
      }
      await adminQuery(postgresUrl, `drop database if exists ${postgresTemplateDatabase} with (force)`);
    },
  };
}

/** The file-scanning tests start a clamd of their own (./clamd.ts): its binary must be installed. */
function checkClamd(): string | undefined {
  const found = spawnSync('clamd', ['--version'], { encoding: 'utf8' });
  return found.error ? "clamd (Debian's clamav-daemon package: apt-get install clamav-daemon; no signature download is needed)" : undefined;
}

/** Migrates and closes: a template must have no connection when it is copied. */
async function migrateOnce(url: string): Promise<void> {
  // Imported only now: tests load the compiled product, which the build above brought up to date.
  const { createDatabase } = await import('../../src/platform/db/database.js');
  const { migrateToLatest } = await import('../../src/platform/db/migrate.js');
  const handle = createDatabase(url, { poolSize: 1 });
  try {
    await migrateToLatest(handle);
  } finally {
    await handle.close();
  }
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function ensurePostgres(url: string): Promise<string | undefined> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1)) || 'formgate_test';
  const where = `${target.hostname}:${target.port || 5432}`;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  maintenance.search = '';
  const client = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    return `PostgreSQL at ${where} (TEST_DATABASE_URL) did not answer (${(err as Error).message}); start it, e.g. pg_ctlcluster <version> main start`;
  }
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database "${name.replaceAll('"', '""')}"`);
      } catch (err) {
        // Two runs creating it at once: the other one won.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
    return undefined;
  } catch (err) {
    return `PostgreSQL at ${where} refused to create database ${name} (${(err as Error).message})`;
  } finally {
    await client.end();
  }
}

function checkRedis(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  const where = `${hostname}:${port || 6379}`;
  const problem = `Redis at ${where} (TEST_REDIS_URL) did not answer; start it, e.g. redis-server --daemonize yes --port ${port || 6379} --save "" --appendonly no`;
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    const done = (result: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(problem), 3000);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG') ? undefined : problem));
    socket.once('error', () => done(problem));
  });
}
