import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { AppError, validationFailed } from '../errors.js';
import { FieldCollector, MAX_FIELDS, MAX_FIELD_NAME_LENGTH, type PostedFields } from './submit-fields.js';

const tooLarge = () => new AppError('payload_too_large', 'The request body is too large.');

/**
 * Parses multipart/form-data with busboy, streaming: text fields are collected (any name, even
 * `constructor`, is data), file parts flow past and are discarded, never buffered. Everything
 * read counts toward the body cap, since this stream bypasses Fastify's bodyLimit.
 */
export function parseMultipartFields(headers: IncomingHttpHeaders, body: Readable, maxBytes: number): Promise<PostedFields> {
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
          fileSize: maxBytes,
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
    const fail = (error: AppError) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      reject(error);
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
    parser.on('file', (_name, file) => {
      file.on('data', (chunk: Buffer) => count(chunk.length));
      file.on('limit', () => fail(tooLarge()));
      file.resume();
    });
    parser.on('fieldsLimit', tooManyFields);
    parser.on('filesLimit', tooManyFields);
    parser.on('partsLimit', tooManyFields);
    parser.on('error', () => fail(validationFailed('The multipart body could not be parsed.')));
    parser.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve(collector.fields);
    });
    body.on('error', () => fail(validationFailed('The request body could not be read.')));
    body.pipe(parser);
  });
}
