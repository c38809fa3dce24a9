// The export scenario of `npm run bench`: the dashboard's CSV export of a form with 1,000,000
// submissions (rows per second, resident memory growth), and what it does to the submit p99 of
// another form meanwhile.
import { JSON_BODY, load, freshDatabase, type BenchDialect, type BenchRow, type LoadResult } from './lib.js';
import { startFormgate } from './servers.js';
import { medianBy } from './stats.js';
import { memoryOf } from './proc.js';
import { owner, seed } from './dashboard.js';

interface ExportRun {
  rows: number;
  seconds: number;
  /** Highest RSS seen while exporting minus the RSS just before (MB). */
  rssGrowthMb: number;
}

/** Downloads the CSV export, counting its rows, sampling the server's RSS every 20 ms. */
async function runExport(url: string, cookie: string, pid: number, signal?: AbortSignal): Promise<ExportRun> {
  const before = memoryOf(pid).rssMb;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rssMb)), 20);
  const started = performance.now();
  let rows = 0;
  try {
    const res = await fetch(url, { headers: { cookie }, ...(signal ? { signal } : {}) });
    if (res.status !== 200) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
    }
  } catch (err) {
    if (!signal?.aborted) throw err;
  } finally {
    clearInterval(sampler);
  }
  return { rows: rows - 1, seconds: (performance.now() - started) / 1000, rssGrowthMb: peak - before };
}

export async function exportScenario(
  db: BenchDialect,
  options: { rows: number; seconds: number; rounds: number },
): Promise<BenchRow[]> {
  const database = await freshDatabase(db);
  const { formIds, cookie } = await owner(database.url, 2);
  const [exportForm, submitForm] = formIds as [string, string];
  const seedSeconds = await seed(db, database.url, [exportForm], options.rows);
  const server = await startFormgate(database.url);
  try {
    const exportUrl = `${server.url}/dashboard/forms/${exportForm}/export.csv`;
    const pid = server.process.pid!;
    await runExport(exportUrl, cookie, pid); // warm-up: the file cache, the JIT
    const alone = await runExport(exportUrl, cookie, pid);
    if (alone.rows !== options.rows) throw new Error(`the export held ${alone.rows} rows, not ${options.rows}`);

    const submit = () => load({ url: `${server.url}/v1/submit/${submitForm}`, body: JSON_BODY, contentType: 'application/json', seconds: options.seconds });
    await submit(); // warm-up
    const rounds: Array<{ without: LoadResult; during: LoadResult; covered: boolean }> = [];
    for (let round = 0; round < options.rounds; round++) {
      const without = await submit();
      const abort = new AbortController();
      let finished = false;
      const exporting = runExport(exportUrl, cookie, pid, abort.signal).then(() => (finished = true));
      const during = await submit();
      const covered = !finished;
      abort.abort();
      await exporting;
      rounds.push({ without, during, covered });
    }
    const mid = medianBy(rounds, (r) => r.during.p99 / r.without.p99);
    const rowsPerSecond = Math.round(alone.rows / alone.seconds);
    const scenario = `CSV export (${options.rows.toLocaleString('en')} rows, seeded in ${seedSeconds.toFixed(0)} s)`;
    return [
      { db, scenario, metric: 'rows per second, one download', value: String(rowsPerSecond), reference: '100000', ratio: (rowsPerSecond / 100_000).toFixed(2), target: '≥ 100,000', pass: rowsPerSecond >= 100_000 },
      { db, scenario, metric: 'RSS growth during the export (MB)', value: String(alone.rssGrowthMb), reference: '50', ratio: (alone.rssGrowthMb / 50).toFixed(2), target: '< 50 MB', pass: alone.rssGrowthMb < 50 },
      {
        db,
        scenario,
        metric: `submit p99 ms on another form during an export vs without (median of ${options.rounds} rounds${rounds.every((r) => r.covered) ? '' : '; an export ended before its load'})`,
        value: String(mid.during.p99),
        reference: String(mid.without.p99),
        ratio: (mid.during.p99 / mid.without.p99).toFixed(2),
        target: '≤ 1.3',
        pass: mid.during.p99 / mid.without.p99 <= 1.3,
      },
    ];
  } finally {
    await server.stop();
    await database.drop();
  }
}
