import type { S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { S3Config } from '../../platform/config.js';
import type { FileStorage } from './file-storage.js';

interface Sdk {
  client: S3Client;
  DeleteObjectCommand: typeof import('@aws-sdk/client-s3').DeleteObjectCommand;
  GetObjectCommand: typeof import('@aws-sdk/client-s3').GetObjectCommand;
  Upload: typeof import('@aws-sdk/lib-storage').Upload;
}

/** 5 MiB, S3's smallest part: a file of unknown length is sent in parts, one part in memory at a time. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * Any S3-compatible store (AWS, MinIO, Garage, R2, Ceph). Checksums only where the API requires
 * them: stores that do not decode the SDK's `aws-chunked` bodies would otherwise keep the chunk
 * framing as the content.
 */
export class S3FileStorage implements FileStorage {
  /** The SDK is loaded on first use: an instance with local files, and every CLI command, never loads it. */
  private sdk: Promise<Sdk> | undefined;

  constructor(private readonly s3: S3Config) {}

  private load(): Promise<Sdk> {
    this.sdk ??= (async () => {
      const [{ DeleteObjectCommand, GetObjectCommand, S3Client }, { Upload }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
      const s3 = this.s3;
      const client = new S3Client({
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      ...(s3.accessKeyId && s3.secretAccessKey ? { credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } : {}),
      });
      return { client, DeleteObjectCommand, GetObjectCommand, Upload };
    })();
    return this.sdk;
  }

  get description(): string {
    return `S3 bucket ${this.s3.bucket}${this.s3.endpoint ? ` at ${this.s3.endpoint}` : ''}`;
  }

  async put(key: string, content: Readable): Promise<void> {
    const { client, Upload } = await this.load();
    const upload = new Upload({
      client,
      params: { Bucket: this.s3.bucket, Key: key, Body: content, ContentType: 'application/octet-stream' },
      partSize: PART_BYTES,
      queueSize: 1,
      leavePartsOnError: false,
    });
    // A failing source stream must stop the upload (lib-storage reads it without listening for errors).
    const onError = () => void upload.abort().catch(() => undefined);
    content.once('error', onError);
    try {
      await upload.done();
    } finally {
      content.off('error', onError);
    }
    if (content.errored) {
      await this.delete(key);
      throw content.errored;
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    const { client, GetObjectCommand } = await this.load();
    try {
      const object = await client.send(new GetObjectCommand({ Bucket: this.s3.bucket, Key: key }));
      return object.Body as Readable;
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const { client, DeleteObjectCommand } = await this.load();
    await client.send(new DeleteObjectCommand({ Bucket: this.s3.bucket, Key: key }));
  }

  async close(): Promise<void> {
    if (this.sdk) (await this.sdk).client.destroy();
  }
}
