// The integrations scenario's row for a form with every kind of integration configured (the five
// chat kinds and every service kind), all aimed at the receiver that answers after 200 ms, against
// a plain form on the same server: nothing on the submit path may wait for a service.
import { generateKeyPairSync } from 'node:crypto';
import { pino } from 'pino';
import { CHAT_KINDS } from '../src/features/integrations/integration.types.js';
import { SERVICE_KINDS } from '../src/features/integrations/service-kinds.js';
import { parseConfig } from '../src/platform/config.js';
import { createDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createServices } from '../src/services.js';
import { freshDatabase, load, type BenchDialect, type BenchRow, type LoadResult } from './lib.js';
import { receiverEnv } from './receiver.js';
import { startFormgate } from './servers.js';
import { medianBy } from './stats.js';

/**
 * Both forms get this body: it ticks the mailing-list kinds' default consent field, so Mailchimp
 * and listmonk send as well rather than skip every submission.
 */
const BODY = JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Hello from the benchmark', topics: ['a', 'b'], subscribe: 'on' });

/** Every service kind's API base at the receiver; listmonk's address is per integration, below. */
function serviceEnv(target: string): Record<string, string> {
  return {
    GOOGLE_SHEETS_API_URL: `${target}/sheets`,
    GOOGLE_TOKEN_URL: `${target}/google-token`,
    AIRTABLE_API_URL: `${target}/airtable`,
    NOTION_API_URL: `${target}/notion`,
    MAILCHIMP_API_URL: `${target}/mailchimp`,
    TELEGRAM_API_URL: `${target}/telegram`,
  };
}

/** What the owner would type for each kind, well formed (the receiver checks nothing). */
function inputs(target: string): Array<Record<string, string | string[]>> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const googleKey = JSON.stringify({
    type: 'service_account',
    project_id: 'formgate-bench',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'bench@formgate-bench.iam.gserviceaccount.com',
  });
  const chat: Record<(typeof CHAT_KINDS)[number], Record<string, string>> = {
    slack: { url: `${target}/slack` },
    discord: { url: `${target}/discord` },
    telegram: { token: '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0', chatId: '-1001234567890' },
    teams: { url: `${target}/teams` },
    ntfy: { url: `${target}/ntfy/topic` },
  };
  const services: Record<string, Record<string, string | string[]>> = {
    sheets: { key: googleKey, spreadsheet: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' },
    airtable: { token: 'patBenchToken.0123456789', base: 'appABCDEFGHIJ0123', table: 'Leads', map: ['email=Email'] },
    notion: { token: 'ntn_bench0123456789', database: '0123456789abcdef0123456789abcdef' },
    mailchimp: { apiKey: '0123456789abcdef0123456789abcdef-us21', audience: 'a1b2c3d4e5' },
    listmonk: { url: `${target}/listmonk`, username: 'formgate', token: 'bench-token', lists: ['3'] },
  };
  const missing = SERVICE_KINDS.map((k) => k.kind).filter((kind) => !(kind in services));
  // A kind added later must join this row, or the row would no longer be "every kind".
  if (missing.length > 0) throw new Error(`no bench settings for the service kinds ${missing.join(', ')}`);
  return [...CHAT_KINDS.map((kind) => ({ kind, ...chat[kind] })), ...SERVICE_KINDS.map((k) => ({ kind: k.kind, ...services[k.kind]! }))];
}

/** A plain form and one with every kind, added through the integrations service as the dashboard adds them. */
async function forms(url: string, env: Record<string, string>, target: string): Promise<{ plain: string; every: string; kinds: number }> {
  const handle = createDatabase(url, { poolSize: 2 });
  try {
    await migrateToLatest(handle);
    const services = createServices(handle, parseConfig({ LOG_LEVEL: 'silent', ...env }), pino({ level: 'silent' }));
    const account = await services.accounts.createAccount({ email: `bench-${Date.now()}@example.com`, planId: 'pro' });
    const plain = await services.forms.createForm(account.id, { name: 'Plain' });
    const every = await services.forms.createForm(account.id, { name: 'Every integration' });
    const all = inputs(target);
    for (const input of all) await services.integrations.addIntegration(every.id, input as { kind: string });
    return { plain: plain.id, every: every.id, kinds: all.length };
  } finally {
    await handle.close();
  }
}

/** Submit p99 and req/s of the form with every kind against the plain one; `slow` answers after 200 ms. */
export async function everyKindRows(db: BenchDialect, slow: { url: string; caFile: string; received(): number }, options: { seconds: number; rounds: number }): Promise<BenchRow[]> {
  const database = await freshDatabase(db);
  const env = { ...receiverEnv(slow.caFile), ...serviceEnv(slow.url) };
  const ids = await forms(database.url, env, slow.url);
  const server = await startFormgate(database.url, env);
  const receivedBefore = slow.received();
  try {
    const run = (formId: string) => load({ url: `${server.url}/v1/submit/${formId}`, body: BODY, contentType: 'application/json', seconds: options.seconds });
    await run(ids.plain);
    await run(ids.every);
    const rounds: Array<[LoadResult, LoadResult]> = [];
    // The order alternates: the backlog the integrated runs leave falls on both forms alike.
    for (let round = 0; round < options.rounds; round++) {
      if (round % 2 === 0) rounds.push([await run(ids.plain), await run(ids.every)]);
      else {
        const every = await run(ids.every);
        rounds.push([await run(ids.plain), every]);
      }
    }
    if (rounds.some(([plain, every]) => plain.errors > 0 || every.errors > 0)) throw new Error('submit errors');
    const plainP99 = medianBy(rounds.map((r) => r[0]), (m) => m.p99);
    const everyP99 = medianBy(rounds.map((r) => r[1]), (m) => m.p99);
    const plainRps = medianBy(rounds.map((r) => r[0]), (m) => m.rps);
    const everyRps = medianBy(rounds.map((r) => r[1]), (m) => m.rps);
    const p99Ratio = everyP99.p99 / plainP99.p99;
    const label = `every integration kind (${ids.kinds}: ${CHAT_KINDS.length} chat, ${SERVICE_KINDS.length} services) to a 200 ms receiver vs none`;
    return [
      { db, scenario: 'integrations', metric: `submit p99 ms, ${label}`, value: String(everyP99.p99), reference: String(plainP99.p99), ratio: p99Ratio.toFixed(2), target: '≤ 1.3', pass: p99Ratio <= 1.3 },
      { db, scenario: 'integrations', metric: 'submit req/s, every integration kind vs none', value: String(everyRps.rps), reference: String(plainRps.rps), ratio: (everyRps.rps / plainRps.rps).toFixed(2) },
      { db, scenario: 'integrations', metric: 'requests to the 200 ms receiver started meanwhile (every kind)', value: String(slow.received() - receivedBefore), reference: '—', ratio: '—' },
    ];
  } finally {
    await server.stop();
    await database.drop();
  }
}
