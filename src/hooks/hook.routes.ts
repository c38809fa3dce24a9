import type { FastifyInstance } from 'fastify';

// Issue 5: POST/GET/DELETE /hooks.
export async function hookRoutes(_app: FastifyInstance): Promise<void> {}
