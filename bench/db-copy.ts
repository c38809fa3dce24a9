// `npm run bench:db-copy [-- --rows 100000]`: rows copied per second by `formgate db copy`, from a
// SQLite file holding that many submissions (one form, realistic payloads) into PostgreSQL at
// BENCH_DATABASE_URL, then back into a new SQLite file. Prints one JSON line.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { parseConfig } from '../src/platform/config.js';
import { createDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { DatabaseCopyService } from '../src/features/database-copy/database-copy.service.js';
import { randomBase62 } from '../src/platform/lib/ids.js';
import { createServices } from '../src/services.js';
import { insertSubmissionRows } from '../src/features/submit/submission.repository.js';
import { freshDatabase } from './lib.js';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const rows = Number(values.rows);
const CHUNK = 5000;

async function fill(handle: DatabaseHandle): Promise<void> {
  const services = createServices(handle, parseConfig({ LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
  const account = await services.accounts.createAccount({ email: 'bench@example.com', password: 'bench password' });
  await services.apiKeys.createApiKey(account.id, 'bench');
  const form = await services.forms.createForm(account.id, { name: 'Contact' });
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  for (let done = 0; done < rows; done += CHUNK) {
    const batch = Array.from({ length: Math.min(CHUNK, rows - done) }, (_, i) => {
      const n = done + i;
      return {
        id: `sub_${randomBase62(24)}`,
        form_id: form.id,
        created_at: new Date(start + n * 1000).toISOString(),
        status: 'delivered',
        is_spam: n % 10 === 0 ? 1 : 0,
        spam_reason: n % 10 === 0 ? 'honeypot' : null,
        payload: JSON.stringify({ name: `Person ${n}`, email: `person${n}@example.org`, message: `Hello, I would like to know more about plan ${n % 3}. Thanks!` }),
        ip: '203.0.113.7',
        country: 'DE',
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
        referer: 'https://site.example/contact',
      };
    });
    await handle.db.transaction().execute((trx) => insertSubmissionRows(trx, batch));
  }
}

async function timedCopy(fromUrl: string, toUrl: string) {
  const [from, to] = [createDatabase(fromUrl, { poolSize: 2, queryTimeoutMs: 600_000 }), createDatabase(toUrl, { poolSize: 1, queryTimeoutMs: 600_000 })];
  try {
    await migrateToLatest(to);
    const result = await new DatabaseCopyService(from).copyTo(to);
    if (!result.matched) throw new Error('counts differ');
    return { rows: result.rows, seconds: Number((result.durationMs / 1000).toFixed(1)), rowsPerSecond: Math.round(result.rows / (result.durationMs / 1000)) };
  } finally {
    await from.close();
    await to.close();
  }
}

const [sqliteSource, postgres, sqliteBack] = [await freshDatabase('sqlite'), await freshDatabase('postgres'), await freshDatabase('sqlite')];
try {
  const source = createDatabase(sqliteSource.url);
  await migrateToLatest(source);
  const filling = performance.now();
  await fill(source);
  await source.close();
  const fillSeconds = (performance.now() - filling) / 1000;
  const toPostgres = await timedCopy(sqliteSource.url, postgres.url);
  const toSqlite = await timedCopy(postgres.url, sqliteBack.url);
  process.stdout.write(`${JSON.stringify({ submissions: rows, fillSeconds: Number(fillSeconds.toFixed(1)), sqliteToPostgres: toPostgres, postgresToSqlite: toSqlite })}\n`);
} finally {
  for (const database of [sqliteSource, postgres, sqliteBack]) await database.drop();
}
