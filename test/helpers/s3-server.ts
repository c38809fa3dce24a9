import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { freePort } from './free-port.js';

export interface TestS3Server {
  /** The variables that point Formgate's file storage at it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * An S3-compatible server on a loopback port (s3rver), with one empty bucket, its objects in a
 * temporary folder. s3rver knows the fixed key pair S3RVER / S3RVER.
 */
export async function startS3Server(): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'formgate-s3-'));
  const port = await freePort();
  const server = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: 'formgate-files' }] });
  await server.run();
  return {
    env: {
      FILES_STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: 'formgate-files',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
