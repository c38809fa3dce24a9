import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

export interface TestClamd {
  port: number;
  close(): Promise<void>;
}

/** MD5 and size of the EICAR test file: a one-line signature database that detects it, no download. */
const EICAR_SIGNATURE = '44d88612fea8a8f36de82e1278abb02f:68:Eicar-Test-Signature\n';

async function answersPing(port: number): Promise<boolean> {
  return new Promise((settle) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('connect', () => socket.write('zPING\0'));
    socket.on('close', () => settle(answer.startsWith('PONG')));
    socket.on('error', () => settle(false));
    socket.setTimeout(1000, () => socket.destroy());
  });
}

export interface ClamdOptions {
  /** clamd's StreamMaxLength (default 64M): a longer INSTREAM is refused with "size limit exceeded". */
  streamMaxLength?: string;
}

/** A real clamd (Debian's clamav-daemon) on a loopback port, with a config and signatures of the test's own. */
export async function startClamd(port: number, options: ClamdOptions = {}): Promise<TestClamd> {
  const dir = mkdtempSync(join(tmpdir(), 'formgate-clamd-'));
  writeFileSync(join(dir, 'eicar.hdb'), EICAR_SIGNATURE);
  const config = join(dir, 'clamd.conf');
  writeFileSync(
    config,
    [
      `TCPSocket ${port}`,
      'TCPAddr 127.0.0.1',
      'Foreground yes',
      `DatabaseDirectory ${dir}`,
      `LogFile ${join(dir, 'clamd.log')}`,
      `TemporaryDirectory ${dir}`,
      'Bytecode no',
      `StreamMaxLength ${options.streamMaxLength ?? '64M'}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('clamd', ['--config-file', config], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => (exited = true));
  await waitFor(async () => exited || (await answersPing(port)), 60_000, 'clamd to answer PING');
  if (exited) throw new Error('clamd exited at start');
  return {
    port,
    close: async () => {
      if (!exited) {
        const gone = new Promise((settle) => child.once('exit', settle));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
