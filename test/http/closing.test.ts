import { once } from 'node:events';
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startTestApp } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

// Fastify's own 503 for requests arriving while the server closes has a body of its own
// ({"error":"Service Unavailable","statusCode":503}); Formgate answers in its error envelope.
it('a request arriving while the server closes gets 503 in the envelope; the one in flight completes', async () => {
  const t = await startTestApp();
  try {
    const { form } = await createOwner(t.services);
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(t.url).port) });
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const closed = once(socket, 'close');

    // A submission whose body is still arriving when the server is told to close…
    const body = '{"name":"Ada"}';
    const started = once(t.app.server, 'request');
    socket.write(
      `POST /v1/submit/${form.id} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 4)}`,
    );
    await started;
    const closing = t.app.close();
    await waitFor(() => !t.app.server.listening, 5000, 'the server to stop listening');
    // …then its rest, and a second request pipelined behind it on the same connection.
    socket.write(`${body.slice(4)}GET /v1/api/me HTTP/1.1\r\nHost: x\r\n\r\n`);
    await closed;
    await closing;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(first!.slice(first!.indexOf('\r\n\r\n') + 4))).toMatchObject({ ok: true });
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(second!.slice(second!.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'internal_error', message: expect.any(String) });
    expect(await t.handle.db.selectFrom('submissions').select('id').where('form_id', '=', form.id).execute()).toHaveLength(1);
  } finally {
    await t.handle.close();
    await t.database.drop();
  }
});
