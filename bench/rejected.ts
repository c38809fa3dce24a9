// The rejected-submit scenario of `npm run bench`: what a refused submission costs
// against an accepted one, same server, interleaved rounds. An unknown form ID (one, and a new
// invented one per request, as a client flooding the service would send) and a wrong access key
// must each be answered at least 1.5× as fast as a real submission is stored.
//
// Every run, the accepted one included, names its path per request (autocannon's setupRequest):
// the invented IDs need it, it costs the load generator several µs a request, and the load
// generator shares the machine's two cores with the server, so a run without it would be
// measured with a faster client. A bare Fastify route that reads the same body and answers
// (bench/reference-server.ts) is measured beside them: no refusal that must read its body (a
// wrong access key is a body field) can be answered faster than that.
import autocannon from 'autocannon';
import { newId } from '../src/platform/lib/ids.js';
import { JSON_BODY, benchAccount, freshDatabase, type BenchDialect, type BenchRow } from './lib.js';
import { startFormgate, startReference, type Child } from './servers.js';
import { median } from './stats.js';

const WRONG_KEY_BODY = JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello from the benchmark', access_key: 'not-the-key' });
const TARGET = 1.5;

interface Measured {
  rps: number;
  /** Answers with another status than the one expected. */
  unexpected: number;
}

/** A form accepting submissions and one requiring an access key. */
async function fixtures(url: string): Promise<{ open: string; locked: string }> {
  const { handle, accountId, forms } = await benchAccount(url);
  try {
    const open = await forms.createForm(accountId, { name: 'Open' });
    const locked = await forms.createForm(accountId, { name: 'Locked', accessKey: 'the-real-key' });
    return { open: open.id, locked: locked.id };
  } finally {
    await handle.close();
  }
}

/** 50 connections, the path named per request (the same one, or a new one); counts what did not answer `status`. */
async function measure(base: string, options: { path: string | (() => string); body: string; status: number; seconds: number }): Promise<Measured> {
  const { path } = options;
  const pathOf = typeof path === 'string' ? () => path : path;
  const result = await autocannon({
    url: base,
    method: 'POST',
    connections: 50,
    duration: options.seconds,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: options.body,
    requests: [{ setupRequest: (request) => ({ ...request, path: pathOf() }) }],
  });
  const byStatus: Record<string, { count?: number }> = result.statusCodeStats ?? {};
  const expected = byStatus[String(options.status)]?.count ?? 0;
  const answered = Object.values(byStatus).reduce((sum, s) => sum + (s.count ?? 0), 0);
  return { rps: Math.round(result.requests.average), unexpected: answered - expected + result.errors + result.timeouts };
}

const BARE = 'a bare Fastify route reading the same body (the ceiling of a refusal that reads it)';

export async function rejectedScenario(
  db: BenchDialect,
  options: { seconds: number; rounds: number },
): Promise<BenchRow[]> {
  const database = await freshDatabase(db);
  const { open, locked } = await fixtures(database.url);
  const server = await startFormgate(database.url);
  let bare: Child | undefined;
  const unknown = newId('frm');
  const runs = {
    accepted: () => measure(server.url, { path: `/v1/submit/${open}`, body: JSON_BODY, status: 200, seconds: options.seconds }),
    'one unknown form ID': () => measure(server.url, { path: `/v1/submit/${unknown}`, body: JSON_BODY, status: 404, seconds: options.seconds }),
    'a new invented form ID per request': () => measure(server.url, { path: () => `/v1/submit/${newId('frm')}`, body: JSON_BODY, status: 404, seconds: options.seconds }),
    'wrong access key': () => measure(server.url, { path: `/v1/submit/${locked}`, body: WRONG_KEY_BODY, status: 403, seconds: options.seconds }),
    [BARE]: () => measure(bare!.url, { path: `/v1/submit/${locked}`, body: WRONG_KEY_BODY, status: 200, seconds: options.seconds }),
  };
  const results = new Map<string, Measured[]>(Object.keys(runs).map((name) => [name, []]));
  try {
    bare = await startReference('bare');
    for (const run of Object.values(runs)) await run(); // warm-up
    // Interleaved rounds, the median of each: the machine's drift hits all of them alike.
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, run] of Object.entries(runs)) results.get(name)!.push(await run());
    }
  } finally {
    await Promise.all([server.stop(), bare?.stop()]);
    await database.drop();
  }
  for (const [name, measured] of results) {
    const unexpected = measured.reduce((sum, m) => sum + m.unexpected, 0);
    if (unexpected > 0) throw new Error(`rejected scenario, ${name}: ${unexpected} answers with another status than expected`);
  }
  const accepted = median(results.get('accepted')!.map((m) => m.rps));
  const rows: BenchRow[] = [];
  for (const [name, measured] of results) {
    if (name === 'accepted') continue;
    const rps = median(measured.map((m) => m.rps));
    const ratio = rps / accepted;
    // The bare route is the ceiling beside the targets, not one of them.
    const target = name === BARE ? {} : { target: `≥ ${TARGET.toFixed(2)}`, pass: ratio >= TARGET };
    rows.push({ db, scenario: 'rejected submits', metric: `req/s, ${name} vs accepted submissions (JSON)`, value: String(rps), reference: String(accepted), ratio: ratio.toFixed(2), ...target });
  }
  return rows;
}
