import type { FastifyRequest } from 'fastify';
import { AppError, validationFailed } from '../errors.js';
import { FieldCollector, MAX_FIELDS, MAX_FIELD_NAME_LENGTH, type PostedFields } from './submit-fields.js';

/**
 * Reads a multipart body part by part: text fields are collected, file parts are streamed past
 * and discarded (never buffered). Everything read counts toward the body cap.
 */
export async function readMultipartFields(request: FastifyRequest, maxBytes: number): Promise<PostedFields> {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(request.headers['content-type'] ?? '');
  if (!boundary) throw validationFailed('A multipart body needs a boundary parameter in its Content-Type.');
  const collector = new FieldCollector();
  let bytes = 0;
  const count = (n: number) => {
    bytes += n;
    if (bytes > maxBytes) throw new AppError('payload_too_large', 'The request body is too large.');
  };
  try {
    const parts = request.parts({
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
    for await (const part of parts) {
      if (part.type === 'file') {
        for await (const chunk of part.file) count((chunk as Buffer).length);
        continue;
      }
      if (part.valueTruncated) throw new AppError('payload_too_large', 'The request body is too large.');
      const value = typeof part.value === 'string' ? part.value : String(part.value);
      count(part.fieldname.length + value.length);
      collector.add(part.fieldname, value);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('payload_too_large', 'The request body is too large.');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT') {
      throw validationFailed(`A submission may have at most ${MAX_FIELDS} fields.`);
    }
    throw validationFailed('The multipart body could not be parsed.');
  }
  return collector.fields;
}
