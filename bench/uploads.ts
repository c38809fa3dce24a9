// File uploads (docs/files.md): the server's peak memory while ten 25 MiB uploads stream in
// at once (files go to storage as they arrive, never whole into memory), and what a form that
// keeps files costs a text-only submit against the same form with files off.
// `npm run bench -- --only uploads` (the uploads use a local folder; the text-only rounds run on
// the database of each run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchAccount, freshDatabase, loadWithCpu, type BenchDialect, type BenchRow } from './lib.js';
import { memoryOf } from './proc.js';
import { startFormgate } from './servers.js';

const MIB = 1024 * 1024;
const FILE_BYTES = 25 * MIB;
const CONCURRENT = 10;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const BOUNDARY = 'formgatebenchboundary';

/** A multipart body with one text field and one PNG of `bytes` bytes, made as it is sent (the client holds one chunk). */
function uploadBody(bytes: number): ReadableStream<Uint8Array> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="message"\r\n\r\nhello\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 7);
  let left = bytes - PNG.length;
  let step = 0;
  return new ReadableStream({
    pull(controller) {
      if (step === 0) controller.enqueue(Buffer.concat([head, PNG]));
      else if (left > 0) {
        const n = Math.min(left, chunk.length);
        controller.enqueue(chunk.subarray(0, n));
        left -= n;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
      step++;
    },
  });
}

const textBody = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda Lovelace\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="email"\r\n\r\nada@example.com\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="message"\r\n\r\nHello, this is a text-only message.\r\n--${BOUNDARY}--\r\n`;

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export async function uploadsScenario(db: BenchDialect, options: { seconds: number; rounds: number }): Promise<BenchRow[]> {
  const database = await freshDatabase(db);
  const filesDir = mkdtempSync(join(tmpdir(), 'formgate-bench-files-'));
  const { handle, accountId, forms } = await benchAccount(database.url);
  const filesOn = await forms.createForm(accountId, { name: 'files on', files: 'store', maxFileBytes: FILE_BYTES, maxTotalBytes: FILE_BYTES });
  const filesOff = await forms.createForm(accountId, { name: 'files off' });
  await handle.close();
  const server = await startFormgate(database.url, { FILES_DIR: filesDir, FILES_QUOTA_BYTES: String(64 * 1024 * MIB) });
  try {
    const pid = server.process.pid!;
    const atStart = memoryOf(pid);
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, () =>
        fetch(`${server.url}/v1/submit/${filesOn.id}`, {
          method: 'POST',
          headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, accept: 'application/json' },
          body: uploadBody(FILE_BYTES),
          duplex: 'half',
        } as RequestInit).then(async (res) => ({ status: res.status, body: await res.text() })),
      ),
    );
    const afterUploads = memoryOf(pid);
    const failed = answers.filter((a) => a.status !== 200);
    if (failed.length > 0) throw new Error(`uploads failed: ${JSON.stringify(failed.slice(0, 2))}`);

    // Text-only multipart submits, the two forms alternating so drift (the disk, the other
    // processes on the machine) weighs on both alike.
    const cpu = { on: [] as number[], off: [] as number[] };
    const contentType = `multipart/form-data; boundary=${BOUNDARY}`;
    for (let round = 0; round < options.rounds; round++) {
      for (const [which, form] of [['off', filesOff], ['on', filesOn]] as const) {
        const result = await loadWithCpu(server, `/v1/submit/${form.id}`, textBody, contentType, options.seconds);
        if (result.errors > 0) throw new Error(`text-only submits failed: ${result.errors}`);
        cpu[which].push(result.cpu.server);
      }
    }
    const costRatio = mean(cpu.on) / mean(cpu.off);
    return [
      {
        db,
        scenario: 'file uploads',
        metric: `server peak RSS MB, ${CONCURRENT} concurrent ${FILE_BYTES / MIB} MiB uploads (vs RSS at start)`,
        value: String(afterUploads.peakMb),
        reference: String(atStart.rssMb),
        ratio: '—',
        target: 'peak < 200 MB',
        pass: afterUploads.peakMb < 200,
      },
      {
        db,
        scenario: 'file uploads',
        metric: 'server CPU a text-only multipart submit, form with files stored vs files off',
        value: mean(cpu.on).toFixed(4),
        reference: mean(cpu.off).toFixed(4),
        ratio: costRatio.toFixed(2),
        target: '≤ 1.05',
        pass: costRatio <= 1.05,
      },
    ];
  } finally {
    await server.stop();
    await database.drop();
    rmSync(filesDir, { recursive: true, force: true });
  }
}
