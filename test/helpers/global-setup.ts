import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import pg from 'pg';

/**
 * Runs once before the suite: PostgreSQL and Redis must answer (else one line says what to
 * start, and the run stops), the test database is created when it is missing, and the browser
 * client is rebuilt when its sources changed (every app serves client/dist/formgate.min.js).
 */
export default async function setup(): Promise<void> {
  execFileSync(process.execPath, [new URL('../../scripts/build-client-if-stale.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/formgate_test';
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const problems = [await ensurePostgres(postgresUrl), await checkRedis(redisUrl)].filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    process.stderr.write(`\nThe test suite needs these running first: ${problems.join('; ')}.\n\n`);
    process.exit(1);
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
