import type { FastifyInstance } from 'fastify';

// Issue 3: POST/OPTIONS /v1/submit/:formId, 405 for other methods, GET /thanks.
export async function submitRoutes(_app: FastifyInstance): Promise<void> {}
