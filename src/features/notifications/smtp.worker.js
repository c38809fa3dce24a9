// Plain JavaScript on purpose: a worker thread runs a file as is, from src/ under the tests and
// from dist/ in production (tsc copies it there).
//
// The SMTP transport on a thread of its own (see mailer.ts): nodemailer composes each message
// through a chain of streams, which at hundreds of messages a second is a large share of an event
// loop that also answers submissions. This thread only composes and sends: what to send (subject,
// bodies, headers, envelope) and what the answer means are decided by the caller.
import { Transform } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { createTransport } from 'nodemailer';

/**
 * Hands the composed message on as one chunk. nodemailer streams a message in a piece per header
 * block, boundary and body part, and the SMTP connection writes each piece to the socket as it
 * comes: a dozen system calls a message (and a dozen reads on the server's side) instead of one.
 * Messages are small (field sizes are bounded), so holding one whole costs nothing that matters.
 */
class WholeMessage extends Transform {
  chunks = [];
  _transform(chunk, _encoding, done) {
    this.chunks.push(chunk);
    done();
  }
  _flush(done) {
    done(null, Buffer.concat(this.chunks));
  }
}

const transporter = createTransport(workerData.transport);
transporter.use('stream', (mail, done) => {
  mail.message.transform(() => new WholeMessage());
  done();
});

/** The error's parts that say what went wrong (an Error's own fields do not cross threads). */
const describe = (err) => ({
  code: err?.code,
  responseCode: err?.responseCode,
  response: err?.response,
  command: err?.command,
  message: err?.message ?? String(err),
});

parentPort.on('message', (message) => {
  if (message === 'close') {
    transporter.close();
    process.exit(0);
  }
  transporter.sendMail(message.mail).then(
    (info) => parentPort.postMessage({ id: message.id, response: String(info.response ?? '250 OK') }),
    (err) => parentPort.postMessage({ id: message.id, error: describe(err) }),
  );
});
