import { connect, type Socket } from 'node:net';
import type { Readable } from 'node:stream';

/** A scan's verdict; `unavailable` when clamd did not answer (the file is kept, marked unscanned). */
export type ScanVerdict = 'clean' | 'malware' | 'unavailable';

const CHUNK_BYTES = 64 * 1024;
const PING_TIMEOUT_MS = 5_000;

/**
 * clamd's INSTREAM command over TCP (`CLAMD_URL=tcp://host:3310`): the content is sent in
 * length-prefixed chunks, clamd answers `stream: OK` or `stream: <name> FOUND`.
 */
export class ClamdScanner {
  private readonly host: string;
  private readonly port: number;

  constructor(url: string, private readonly timeoutMs = 30_000) {
    const parsed = new URL(url);
    this.host = parsed.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(parsed.port || 3310);
  }

  /** Whether clamd answers at all (PING, PONG): asked once before a run of scans, not once per file. */
  async ping(): Promise<boolean> {
    const socket = connect({ host: this.host, port: this.port });
    const deadline = setTimeout(() => socket.destroy(new Error('clamd timed out')), PING_TIMEOUT_MS);
    try {
      const answer = collectAnswer(socket);
      answer.catch(() => undefined);
      await once(socket, 'connect');
      await write(socket, Buffer.from('zPING\0'));
      return (await answer).startsWith('PONG');
    } catch {
      return false;
    } finally {
      clearTimeout(deadline);
      socket.destroy();
    }
  }

  /**
   * One file's verdict within `timeoutMs` (the constructor's by default): past it the socket is
   * destroyed, which also ends a write that waits on a clamd that stopped reading, and the file
   * is `unavailable`, so a stalled clamd holds no one longer than that.
   */
  async scan(content: Readable, timeoutMs = this.timeoutMs): Promise<ScanVerdict> {
    const socket = connect({ host: this.host, port: this.port });
    const deadline = setTimeout(() => socket.destroy(new Error('clamd timed out')), Math.max(timeoutMs, 1));
    try {
      const answer = collectAnswer(socket);
      // Awaited below; a failure before then must not count as unhandled.
      answer.catch(() => undefined);
      await once(socket, 'connect');
      await write(socket, Buffer.from('zINSTREAM\0'));
      for await (const chunk of content as AsyncIterable<Buffer>) {
        for (let offset = 0; offset < chunk.length; offset += CHUNK_BYTES) {
          const part = chunk.subarray(offset, offset + CHUNK_BYTES);
          const length = Buffer.alloc(4);
          length.writeUInt32BE(part.length);
          await write(socket, Buffer.concat([length, part]));
        }
      }
      await write(socket, Buffer.alloc(4));
      const text = await answer;
      if (/FOUND\0?$/.test(text)) return 'malware';
      if (/: OK\0?$/.test(text)) return 'clean';
      return 'unavailable';
    } catch {
      content.destroy();
      return 'unavailable';
    } finally {
      clearTimeout(deadline);
      socket.destroy();
    }
  }
}

function once(socket: Socket, event: 'connect'): Promise<void> {
  return new Promise((settle, reject) => {
    socket.once(event, () => settle());
    socket.once('error', reject);
  });
}

function write(socket: Socket, data: Buffer): Promise<void> {
  return new Promise((settle, reject) => socket.write(data, (err) => (err ? reject(err) : settle())));
}

function collectAnswer(socket: Socket): Promise<string> {
  return new Promise((settle, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (chunk.includes(0)) settle(Buffer.concat(chunks).toString('utf8'));
    });
    socket.on('error', reject);
    socket.on('close', () => settle(Buffer.concat(chunks).toString('utf8')));
  });
}
