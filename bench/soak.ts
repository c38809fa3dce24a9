// The soak scenario of `npm run bench`: a steady 400 submissions/s for a while, every
// submission of one form emailed (SMTP sink) and hooked (HTTPS receiver), both answering at once,
// against the same steady load on a form with no outbound work, on the same server. Rows: the
// submit p99 of each, each load's slowest seconds (bench/series.ts: when, and what PostgreSQL was
// doing meanwhile), whether every stored submission reached both sinks exactly once, and how long
// after the load's end the last one arrived.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/platform/db/database.js';
import { waitUntilDelivered } from './drain.js';
import { JSON_BODY, addHooks, addRecipient, benchAccount, cpuPerRequest, cpuSnapshot, freshDatabase, load, type BenchDialect, type BenchRow, type LoadResult } from './lib.js';
import { cpuSeconds } from './proc.js';
import { receiverEnv } from './receiver.js';
import { describeSecond, perSecond, samplePostgres, slowestSeconds, type SecondOfLoad } from './series.js';
import { startFormgate } from './servers.js';
import { startSinks } from './sinks.js';

const RATE = 400;
const WARM_UP_SECONDS = 5;
/**
 * The target is the p99 under the sustained load: answers in the first seconds of each phase,
 * when the load generator opens its 50 connections at once (and, with outbound work, the server
 * opens its TLS and SMTP connections after the idle phase before), are reported apart.
 */
const RAMP_SECONDS = 5;
const DRAIN_DEADLINE_MS = 180_000;

const countRows = async (handle: DatabaseHandle, formId: string) =>
  Number((await sql<{ n: string | number }>`select count(*) as n from submissions where form_id = ${formId}`.execute(handle.db)).rows[0]!.n);

export async function soakScenario(
  db: BenchDialect,
  options: { seconds: number },
): Promise<BenchRow[]> {
  const sinks = await startSinks();
  const database = await freshDatabase(db);
  const { handle, accountId, forms } = await benchAccount(database.url);
  const plain = await forms.createForm(accountId, { name: 'Plain' });
  // The warm-up form opens the SMTP and TLS connections; the measured one starts with no rows.
  const [warm, outbound] = [await forms.createForm(accountId, { name: 'Warm-up' }), await forms.createForm(accountId, { name: 'Outbound' })];
  for (const form of [warm, outbound]) {
    await addRecipient(handle, form.id, 'owner@example.com');
    await addHooks(handle, accountId, form.id, `${sinks.hookUrl}/soak`, 1);
  }
  const server = await startFormgate(database.url, { SMTP_URL: sinks.smtpUrl, ...receiverEnv(sinks.caFile) });
  const steady = (formId: string, seconds: number) =>
    load({ url: `${server.url}/v1/submit/${formId}`, body: JSON_BODY, contentType: 'application/json', seconds, overallRate: RATE, steadyAfterSeconds: RAMP_SECONDS });
  /** Milliseconds until both sinks hold every stored submission of the form (or the deadline). */
  const drained = (formId: string) => waitUntilDelivered({ countStored: () => countRows(handle, formId), tally: () => sinks.tally(), deadlineMs: DRAIN_DEADLINE_MS });
  /**
   * The load, and the CPU it took per stored submission: the server's event loop's thread and all
   * its threads (ms), and every process of the machine (µs: the server, PostgreSQL, the sinks'
   * thread, the rest of this process, which is the load generator), with how busy the cores were.
   */
  const measured = async (formId: string) => {
    const pid = server.process.pid!;
    const [rowsBefore, loopBefore, allBefore] = [await countRows(handle, formId), cpuSeconds(pid, pid), cpuSeconds(pid)];
    const [machineBefore, sinksBefore] = [cpuSnapshot(), cpuSeconds(process.pid, sinks.threadId)];
    const sampler = db === 'postgres' ? await samplePostgres(database.url) : undefined;
    const started = performance.now();
    // A failed load stops the sampler too: its timer and connection would keep the bench from exiting.
    const result = await steady(formId, options.seconds).catch(async (err: unknown) => {
      await sampler?.stop().catch(() => undefined);
      throw err;
    });
    const seconds = perSecond(result.answers ?? [], started, (await sampler?.stop()) ?? []);
    const [machine, sinksSeconds] = [cpuPerRequest(machineBefore, cpuSnapshot(), pid, 1, (performance.now() - started) / 1000), cpuSeconds(process.pid, sinks.threadId) - sinksBefore];
    const rows = (await countRows(handle, formId)) - rowsBefore;
    const perRow = (µs: number) => Math.round(µs / rows);
    const sinksUs = sinksSeconds * 1e6;
    const budget = `${perRow(machine.server)} / ${perRow(machine.postgres)} / ${perRow(sinksUs)} / ${perRow(machine.loadGenerator - sinksUs)}, ${machine.busyPercent}%`;
    return { result, seconds, loopMs: ((cpuSeconds(pid, pid) - loopBefore) * 1000) / rows, allMs: ((cpuSeconds(pid) - allBefore) * 1000) / rows, budget };
  };
  let without: Awaited<ReturnType<typeof measured>>;
  let withOutbound: Awaited<ReturnType<typeof measured>>;
  let drain: Awaited<ReturnType<typeof drained>>;
  try {
    await steady(plain.id, WARM_UP_SECONDS);
    await steady(warm.id, WARM_UP_SECONDS);
    await drained(warm.id);
    without = await measured(plain.id);
    // Only now: the warm-up's last requests, in flight when its load stopped, may be committed and
    // sent after the warm-up looked drained, and would be counted as the outbound form's.
    // The phase without outbound work sends nothing, and lasts long enough for them to arrive.
    await sinks.reset();
    withOutbound = await measured(outbound.id);
    drain = await drained(outbound.id);
    // Anything sent twice arrives within moments of the first: look again a second later.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    drain = { ...drain, stored: await countRows(handle, outbound.id), tally: await sinks.tally() };
  } finally {
    await server.stop();
    await handle.close();
    await database.drop();
    await sinks.close();
  }
  const label = `soak: ${RATE} submissions/s for ${options.seconds} s`;
  const steadyP99 = (result: LoadResult) => result.steadyP99 ?? result.p99;
  const p99Ratio = steadyP99(withOutbound.result) / steadyP99(without.result);
  const { stored, tally } = drain;
  for (const [phase, { seconds }] of [['outbound', withOutbound], ['none', without]] as const) {
    for (const second of slowestSeconds(seconds, 10)) process.stdout.write(`soak (${db}, ${phase}), a slowest second: ${describeSecond(second)}\n`);
  }
  const slowest = (seconds: SecondOfLoad[]) => slowestSeconds(seconds, 3).map(describeSecond).join(' · ');
  const exact = tally.emails.distinct === stored && tally.hooks.distinct === stored && tally.emails.duplicates + tally.hooks.duplicates === 0;
  // Every answered submission is stored (requests cut off by the load's end may be stored unanswered).
  const nothingLost = withOutbound.result.ok <= stored && withOutbound.result.errors === 0 && without.result.errors === 0;
  return [
    {
      db,
      scenario: label,
      metric: `submit p99 ms after the first ${RAMP_SECONDS} s (the sustained load), every submission emailed and hooked (sinks answering at once) vs no outbound work`,
      value: String(steadyP99(withOutbound.result)),
      reference: String(steadyP99(without.result)),
      ratio: p99Ratio.toFixed(2),
      target: '≤ 1.5',
      pass: p99Ratio <= 1.5,
    },
    {
      db,
      scenario: label,
      metric: 'submit p99 ms over the whole load, ramp included (outbound vs none)',
      value: String(withOutbound.result.p99),
      reference: String(without.result.p99),
      ratio: (withOutbound.result.p99 / without.result.p99).toFixed(2),
    },
    {
      db,
      scenario: label,
      metric:
        "the load's 3 slowest seconds, outbound vs none (s since its start: slowest / p99 ms, requests sent that second; PostgreSQL's WAL that second, its checkpointer writing, autovacuum at work)",
      value: slowest(withOutbound.seconds),
      reference: slowest(without.seconds),
      ratio: '—',
    },
    { db, scenario: label, metric: 'submit p50 ms, outbound vs none; req/s achieved (outbound, none)', value: String(withOutbound.result.p50), reference: String(without.result.p50), ratio: `${withOutbound.result.rps}, ${without.result.rps} req/s` },
    {
      db,
      scenario: label,
      metric: "server CPU ms per submission on the event loop's thread, outbound vs none (all threads in brackets)",
      value: `${withOutbound.loopMs.toFixed(2)} (${withOutbound.allMs.toFixed(2)})`,
      reference: `${without.loopMs.toFixed(2)} (${without.allMs.toFixed(2)})`,
      ratio: (withOutbound.loopMs / without.loopMs).toFixed(2),
    },
    {
      db,
      scenario: label,
      metric: 'CPU µs per submission: server / PostgreSQL / the sinks / the load generator, and % of the cores busy (outbound vs none)',
      value: withOutbound.budget,
      reference: without.budget,
      ratio: '—',
    },
    {
      db,
      scenario: label,
      metric: 'rows stored = distinct submissions emailed = distinct submissions hooked (answered 2xx; duplicates emailed + hooked)',
      value: `${stored} = ${tally.emails.distinct} = ${tally.hooks.distinct}`,
      reference: `${withOutbound.result.ok} answered; ${tally.emails.duplicates} + ${tally.hooks.duplicates} dup.`,
      ratio: '—',
      target: 'all equal, none twice',
      pass: exact && nothingLost,
    },
    { db, scenario: label, metric: "seconds from the load's end until both sinks had every stored submission", value: (drain.ms / 1000).toFixed(2), reference: '—', ratio: '—', target: '≤ 5 s', pass: drain.ms <= 5000 },
  ];
}
