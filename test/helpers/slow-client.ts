import { connect } from 'node:net';
import { parseResponse, type RawResponse } from './raw-http.js';

export interface SlowClientResult extends RawResponse {
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * A client that sends `head` and then one byte of `trickle` every `everyMs` until the server
 * answers or closes: a slow-header client (head without the blank line) or a slow-body client
 * (head with Content-Length, body trickled). Resolves when the server closes the socket.
 */
export function slowClient(url: string, head: string, trickle: string, everyMs: number, giveUpMs = 60_000): Promise<SlowClientResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`slow client still connected after ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (!socket.writable) return;
        socket.write(trickle[sent % trickle.length]!);
        sent++;
      }, everyMs);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ ...parseResponse(Buffer.concat(chunks)), closedAfterMs: Date.now() - started });
    });
  });
}

export const slowHeaderHead = (host: string, formId: string): string =>
  `POST /v1/submit/${formId} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n`;

export const slowBodyHead = (host: string, formId: string, length = 1000): string =>
  `POST /v1/submit/${formId} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${length}\r\n\r\n{"a":"`;
