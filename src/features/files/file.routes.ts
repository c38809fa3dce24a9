import type { FastifyInstance, FastifyReply } from 'fastify';
import { ALWAYS, MANAGEMENT, errorResponses } from '../../platform/http/error-responses.js';
import type { FileDownload } from './file.service.js';

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100, description: 'File ID' } } } as const;

const fileBody = {
  description:
    'The file, always as an attachment (Content-Disposition: attachment), application/octet-stream, with X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox. X-File-Type is the type its content was told as.',
  headers: {
    'Content-Disposition': { type: 'string', description: 'attachment, with the cleaned file name' },
    'X-File-Type': { type: 'string', description: 'The MIME type the content was told as by its magic bytes' },
  },
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
} as const;

/**
 * Every file download, whoever asks: an attachment that no browser renders or sniffs, under a
 * sandbox should it be opened anyway.
 */
export function sendFile(reply: FastifyReply, { file, content }: FileDownload): FastifyReply {
  const ascii = file.name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return reply
    .header('content-disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', 'sandbox')
    .header('cache-control', 'private, no-store')
    .header('x-file-type', file.type)
    .type('application/octet-stream')
    .send(content);
}

/** GET /v1/api/files/:id: a file of the key's account (another account's is 404). */
export async function fileApiRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/files/:id',
    {
      schema: {
        tags: ['files'],
        operationId: 'getFile',
        summary: 'Download an uploaded file (with CLAMD_URL set, 409 file_not_scanned until it is scanned clean)',
        security: [{ bearerAuth: [] }],
        params: idParams,
        response: { 200: fileBody, ...errorResponses([...MANAGEMENT, 404, 409]) },
      },
    },
    async (request, reply) => sendFile(reply, await app.services.files.getFileOfAccount(request.accountId, request.params.id)),
  );
}

/** GET /v1/files/:id?expires=&signature=: the signed links of hook bodies, emails and chat messages. */
export async function signedFileRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string }; Querystring: { expires?: string; signature?: string } }>(
    '/v1/files/:id',
    {
      schema: {
        tags: ['files'],
        operationId: 'getFileByLink',
        summary: 'Download a file through a signed link (valid 7 days; a tampered or expired link is 404; with CLAMD_URL set, 409 file_not_scanned until it is scanned clean)',
        security: [],
        params: idParams,
        querystring: {
          type: 'object',
          properties: {
            expires: { type: 'string', maxLength: 20, description: 'Unix time the link stops working' },
            signature: { type: 'string', maxLength: 100, description: "The link's HMAC" },
          },
        },
        response: { 200: fileBody, ...errorResponses([...ALWAYS, 404, 409]) },
      },
    },
    async (request, reply) =>
      sendFile(reply, await app.services.files.getFileByLink(request.params.id, request.query.expires ?? '', request.query.signature ?? '')),
  );
}
