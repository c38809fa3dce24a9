import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { testDialect, type TestDatabase } from '../../test/helpers/database.js';
import { createOwner, servicesFor, useMigratedDatabase } from '../../test/helpers/factories.js';
import { spawnServer } from '../../test/helpers/server-process.js';
import { startSmtpSink, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { waitFor } from '../../test/helpers/wait.js';

let database: TestDatabase;
let handle: DatabaseHandle;
let sink: SmtpSink;
let formId: string;
const dir = mkdtempSync(join(tmpdir(), 'formgate-imports-'));

useMigratedDatabase((opened) => ({ database, handle } = opened));

beforeAll(async () => {
  sink = await startSmtpSink();
  const services = servicesFor(handle);
  ({ form: { id: formId } } = await createOwner(services));
  await services.notifications.setRecipients(formId, ['owner@example.net'], { verified: true });
});

afterAll(async () => {
  await sink?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the compiled server, submits once, and returns the module specifiers it resolved. */
async function importsOfARun(env: Record<string, string>, done: () => boolean): Promise<string[]> {
  const log = join(dir, `imports-${Date.now()}.log`);
  const server = await spawnServer({
    DATABASE_URL: database.url,
    FORMGATE_IMPORT_LOG: log,
    NODE_OPTIONS: `--import=${resolve('test/helpers/import-log.mjs')}`,
    ...env,
  });
  try {
    const res = await fetch(`${server.url}/v1/submit/${formId}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"m":1}' });
    expect(res.status).toBe(200);
    await waitFor(done, 15_000, 'the run to finish its work');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  return readFileSync(log, 'utf8').split('\n');
}

describe(`email off on ${testDialect}`, () => {
  it('with SMTP_URL unset the server never loads nodemailer, even for a form with recipients', async () => {
    const rows = async () => (await handle.db.selectFrom('submissions').select('id').where('form_id', '=', formId).execute()).length;
    const off = await importsOfARun({}, () => true);
    expect(await rows()).toBe(1);
    expect(off.some((s) => s.includes('fastify'))).toBe(true);
    expect(off.filter((s) => s.includes('nodemailer'))).toEqual([]);
    // The control: with SMTP_URL set the same submission is emailed, and nodemailer is loaded.
    const on = await importsOfARun({ SMTP_URL: sink.url }, () => sink.to('owner@example.net').length === 1);
    expect(on.filter((s) => s.includes('nodemailer')).length).toBeGreaterThan(0);
  });
});
