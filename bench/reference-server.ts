// The references of the submit benchmark, in their own process like the server under test:
// REFERENCE=bare parses the same body and answers the same JSON (the framework ceiling);
// REFERENCE=insert also does one autocommitted single-row insert through the same driver;
// REFERENCE=group is the group-commit limit: rows group-committed as Formgate does it (requests
// that arrive while a batch is written wait for the next one; SQLite: one transaction per batch
// with a prepared insert; PostgreSQL: one INSERT … SELECT FROM unnest per batch, one batch in
// flight) into a table of (id, form_id, payload, created_at), and nothing else.
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

const mode = process.env.REFERENCE ?? 'bare';
const databaseUrl = process.env.DATABASE_URL ?? 'sqlite::memory:';

const createTable = `create table if not exists reference_submissions (
  id text primary key, form_id text not null, created_at text not null, status text not null,
  is_spam integer not null, payload text not null, ip text not null, country text not null,
  user_agent text not null, referer text not null)`;

let insert: (values: unknown[]) => Promise<void> = async () => {};
if (mode === 'insert' && databaseUrl.startsWith('sqlite:')) {
  const db = new SqliteDatabase(databaseUrl.slice('sqlite:'.length));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(createTable);
  const statement = db.prepare('insert into reference_submissions values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  insert = async (values) => void statement.run(...values);
} else if (mode === 'insert') {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(createTable);
  insert = async (values) => void (await pool.query({ name: 'ref-insert', text: 'insert into reference_submissions values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', values }));
}

const createGroupTable = 'create table if not exists reference_group (id text primary key, form_id text not null, payload text not null, created_at text not null)';
type GroupRow = [id: string, formId: string, payload: string, createdAt: string];
let writeBatch: (rows: GroupRow[]) => Promise<void> = async () => {};
if (mode === 'group' && databaseUrl.startsWith('sqlite:')) {
  const db = new SqliteDatabase(databaseUrl.slice('sqlite:'.length));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(createGroupTable);
  const statement = db.prepare('insert into reference_group values (?, ?, ?, ?)');
  const inOneTransaction = db.transaction((rows: GroupRow[]) => {
    for (const row of rows) statement.run(row);
  });
  writeBatch = async (rows) => void inOneTransaction(rows);
} else if (mode === 'group') {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  await pool.query(createGroupTable);
  writeBatch = async (rows) =>
    void (await pool.query({
      name: 'ref-group',
      text: 'insert into reference_group select * from unnest($1::text[], $2::text[], $3::text[], $4::text[])',
      values: [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])],
    }));
}

/** One batch in flight; what arrives meanwhile waits for the next, started in the check phase. */
let waiting: Array<{ row: GroupRow; done: (error?: unknown) => void }> = [];
let writing = false;
function scheduleBatch(): void {
  if (writing) return;
  writing = true;
  setImmediate(() => {
    const batch = waiting;
    waiting = [];
    writeBatch(batch.map((w) => w.row)).then(
      () => batch.forEach((w) => w.done()),
      (error: unknown) => batch.forEach((w) => w.done(error)),
    ).finally(() => {
      writing = false;
      if (waiting.length > 0) scheduleBatch();
    });
  });
}
const groupCommit = (row: GroupRow) =>
  new Promise<void>((resolve, reject) => {
    waiting.push({ row, done: (error) => (error ? reject(error) : resolve()) });
    scheduleBatch();
  });

const app = Fastify({ logger: false });
await app.register(formbody);
app.post('/v1/submit/:formId', async (request) => {
  const id = randomUUID();
  if (mode === 'group') {
    await groupCommit([id, (request.params as { formId: string }).formId, JSON.stringify(request.body), new Date().toISOString()]);
    return { ok: true, submissionId: id };
  }
  await insert([id, (request.params as { formId: string }).formId, new Date().toISOString(), 'delivered', 0, JSON.stringify(request.body), request.ip, 'XX', request.headers['user-agent'] ?? '', request.headers.referer ?? '']);
  return { ok: true, submissionId: id };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`reference listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
