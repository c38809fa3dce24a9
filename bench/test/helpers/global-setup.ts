import pg from 'pg';

/**
 * Runs once before the bench's tests: the PostgreSQL of TEST_DATABASE_URL must answer (else one
 * line says what to start, and the run stops rather than fail file by file), and its database is
 * created when it is missing.
 */
export default async function setup(): Promise<void> {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/formgate_test');
  const name = decodeURIComponent(url.pathname.slice(1)) || 'formgate_test';
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  maintenance.search = '';
  const client = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    process.stderr.write(`\nThe bench's tests need PostgreSQL at ${url.hostname}:${url.port || 5432} (TEST_DATABASE_URL), which did not answer (${(err as Error).message}).\n\n`);
    process.exit(1);
  }
  try {
    if ((await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 0) {
      await client.query(`create database "${name.replaceAll('"', '""')}"`).catch((err: { code?: string }) => {
        // Another run created it meanwhile.
        if (err.code !== '42P04') throw err;
      });
    }
  } finally {
    await client.end();
  }
}
