import type { FastifyInstance } from 'fastify';

// Issue 4: GET /forms/:id/submissions (keyset paging) and GET /submissions/:id.
export async function submissionApiRoutes(_app: FastifyInstance): Promise<void> {}
