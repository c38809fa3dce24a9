import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { AppError, validationFailed } from '../../platform/errors.js';
import type { FileRef } from '../../platform/lib/file-links.js';
import { FieldCollector, MAX_FIELDS, MAX_FIELD_NAME_LENGTH, type PostedFields } from './submit-fields.js';

const tooLarge = () => new AppError('payload_too_large', 'The request body is too large.');

/** Where file parts go on a form that keeps files (the files feature's UploadBatch). */
export interface FileReceiver {
  /** Stores one file part; undefined for an empty file input. Rejects with the AppError the client gets. */
  receive(field: string, name: string | undefined, stream: Readable): Promise<FileRef | undefined>;
  /** Removes whatever was stored. */
  discard(): Promise<void>;
}

/**
 * Parses multipart/form-data with busboy, streaming: text fields are collected (any name, even
 * `constructor`, is data). Without `files`, file parts flow past and are discarded, never
 * buffered, and everything read counts toward the body cap, since this stream bypasses
 * Fastify's bodyLimit. With `files`, each file part is streamed to storage and its field holds
 * `{ file: {id, name, size, type} }`, in the order sent; the files' own limits apply to them and
 * the body cap to the text fields. On any failure, what was stored is removed before the answer.
 * `refuseFiles` (a sealed form) answers any file part with its error instead of dropping it.
 */
export function parseMultipartFields(
  headers: IncomingHttpHeaders,
  body: Readable,
  maxBytes: number,
  files?: FileReceiver,
  refuseFiles?: () => AppError,
): Promise<PostedFields> {
  return new Promise((resolve, reject) => {
    const contentType = headers['content-type'] ?? '';
    if (!/;\s*boundary=(?:"[^"]+"|[^;\s]+)/i.test(contentType)) {
      reject(validationFailed('A multipart body needs a boundary parameter in its Content-Type.'));
      return;
    }
    let parser: BusboyInstance;
    try {
      parser = Busboy({
        headers: { ...headers, 'content-type': contentType },
        limits: {
          fields: MAX_FIELDS,
          // Longer names are read whole so the limit check can name them.
          fieldNameSize: MAX_FIELD_NAME_LENGTH * 4 + 1,
          fieldSize: maxBytes,
          fileSize: files ? Number.MAX_SAFE_INTEGER : maxBytes,
          files: MAX_FIELDS,
          parts: MAX_FIELDS * 2,
        },
      });
    } catch {
      reject(validationFailed('The multipart Content-Type could not be read.'));
      return;
    }
    const collector = new FieldCollector();
    let bytes = 0;
    let settled = false;
    /** Each file's storing, chained so they are stored one at a time and join the fields in the order sent. */
    let storing: Promise<void> = Promise.resolve();
    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      if (files) {
        // The body is not read any further: stop the upload in progress, and remove what was stored.
        body.resume();
        void files.discard().then(() => reject(error), () => reject(error));
      } else reject(error);
    };
    const count = (n: number) => {
      bytes += n;
      if (bytes > maxBytes) fail(tooLarge());
    };
    const tooManyFields = () => fail(validationFailed(`A submission may have at most ${MAX_FIELDS} fields.`));

    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (settled) return;
      if (valueTruncated) return fail(tooLarge());
      count(Buffer.byteLength(name) + Buffer.byteLength(value));
      try {
        collector.add(name, value);
      } catch (error) {
        fail(error as AppError);
      }
    });
    parser.on('file', (name: string, file: Readable, filename: string | undefined) => {
      if (refuseFiles && !files && !settled) {
        file.resume();
        return fail(refuseFiles());
      }
      if (!files || settled) {
        file.on('data', (chunk: Buffer) => count(chunk.length));
        file.on('limit', () => fail(tooLarge()));
        file.resume();
        return;
      }
      // One file after another: each is counted against the limits before the next is read.
      storing = storing.then(async () => {
        const ref = await files.receive(name, filename, file);
        if (ref && !settled) collector.add(name, { file: ref });
      });
      storing.catch((error: unknown) => fail(error instanceof AppError ? error : new AppError('internal_error', 'The file could not be stored.')));
    });
    parser.on('fieldsLimit', tooManyFields);
    parser.on('filesLimit', tooManyFields);
    parser.on('partsLimit', tooManyFields);
    parser.on('error', () => fail(validationFailed('The multipart body could not be parsed.')));
    parser.on('finish', () => {
      if (settled) return;
      storing.then(() => {
        if (settled) return;
        settled = true;
        resolve(collector.fields);
      }, () => undefined);
    });
    body.on('error', () => fail(validationFailed('The request body could not be read.')));
    // A client that goes away mid-upload: nothing it sent is kept.
    body.on('aborted', () => fail(validationFailed('The request body was cut off.')));
    body.on('close', () => {
      if (!body.readableEnded) fail(validationFailed('The request body was cut off.'));
    });
    body.pipe(parser);
  });
}
