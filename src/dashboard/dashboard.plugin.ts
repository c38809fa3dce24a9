import type { FastifyInstance } from 'fastify';

// Issue 6: the owner's web UI under /dashboard.
export async function dashboardPlugin(_app: FastifyInstance): Promise<void> {}
