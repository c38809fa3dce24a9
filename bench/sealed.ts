// The sealed scenario of `npm run bench` (`--only sealed`): submit throughput of a sealed form
// (the body one armored age file, whose header the server parses) beside a plain form, bodies of
// the same size, same server, interleaved rounds.
import { Encrypter, armor, generateX25519Identity, identityToRecipient } from 'age-encryption';
import { pino } from 'pino';
import { parseConfig } from '../src/platform/config.js';
import { createDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createServices } from '../src/services.js';
import { freshDatabase, load, type BenchDialect, type BenchRow, type LoadResult } from './lib.js';
import { startFormgate } from './servers.js';
import { medianBy } from './stats.js';

const FIELDS = { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello, could you tell me when the shop opens on Saturday?', topics: ['a', 'b'] };

/** The sealed body, and a plain one of the same length (its message padded with words, which the search index takes in as it does the ciphertext's). */
async function bodies(recipients: string[]): Promise<{ sealed: string; plain: string }> {
  const encrypter = new Encrypter();
  for (const recipient of recipients) encrypter.addRecipient(recipient);
  const sealed = JSON.stringify({ sealed: armor.encode(await encrypter.encrypt(JSON.stringify(FIELDS))) });
  const unpadded = JSON.stringify(FIELDS);
  const padding = ' We would like to visit on Saturday morning with two friends.'.repeat(20).slice(0, Math.max(0, sealed.length - unpadded.length));
  const plain = JSON.stringify({ ...FIELDS, message: FIELDS.message + padding });
  return { sealed, plain };
}

export async function sealedScenario(db: BenchDialect, seconds: number, rounds: number): Promise<BenchRow[]> {
  const database = await freshDatabase(db);
  const handle = createDatabase(database.url, { poolSize: 2 });
  // Two recipients: the owner's and a second kept offline, as docs/sealed-forms.md advises.
  const recipients = await Promise.all([generateX25519Identity(), generateX25519Identity()].map(async (identity) => identityToRecipient(await identity)));
  let formIds: { sealed: string; plain: string };
  try {
    await migrateToLatest(handle);
    const services = createServices(handle, parseConfig({ LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
    const account = await services.accounts.createAccount({ email: `bench-${Date.now()}@example.com`, planId: 'pro' });
    const sealed = await services.forms.createForm(account.id, { name: 'Sealed', sealed: { recipients: recipients.map((recipient) => ({ recipient, label: null })) } });
    const plain = await services.forms.createForm(account.id, { name: 'Plain' });
    formIds = { sealed: sealed.id, plain: plain.id };
  } finally {
    await handle.close();
  }
  const body = await bodies(recipients);
  const server = await startFormgate(database.url);
  try {
    const run = (which: 'sealed' | 'plain') => load({ url: `${server.url}/v1/submit/${formIds[which]}`, body: body[which], contentType: 'application/json', seconds });
    await run('sealed'); // warm-up
    await run('plain');
    const results: Array<[LoadResult, LoadResult]> = [];
    // The order alternates: whatever a run leaves behind (a WAL checkpoint, garbage) falls on both alike.
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) results.push([await run('sealed'), await run('plain')]);
      else {
        const plain = await run('plain');
        results.push([await run('sealed'), plain]);
      }
    }
    const sealed = medianBy(results.map((r) => r[0]), (m) => m.rps);
    const plain = medianBy(results.map((r) => r[1]), (m) => m.rps);
    if (sealed.errors > 0 || plain.errors > 0) throw new Error('submit errors');
    const r = sealed.rps / plain.rps;
    return [
      { db, scenario: 'sealed forms', metric: `submit req/s, sealed (2 recipients) vs plain, both bodies ${body.sealed.length} bytes`, value: String(sealed.rps), reference: String(plain.rps), ratio: r.toFixed(2), target: '≥ 0.80', pass: r >= 0.8 },
      { db, scenario: 'sealed forms', metric: 'submit p50 / p99 ms, sealed vs plain', value: `${sealed.p50} / ${sealed.p99}`, reference: `${plain.p50} / ${plain.p99}`, ratio: (sealed.p99 / plain.p99).toFixed(2) },
    ];
  } finally {
    await server.stop();
    await database.drop();
  }
}
