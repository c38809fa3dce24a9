import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';

type Owner = Awaited<ReturnType<typeof createOwner>>;

export interface FormBody {
  form: { id: string; key: string | null; name: string; isActive: 0 | 1; updatedAt: string; settings: Record<string, unknown>; recipients: string[] };
}
export interface IntegrationBody {
  integration: { id: string; formId: string; kind: string; name: string; enabled: boolean; url: 'set' | null };
}

/** The app of a write API test file: an owner with a key of each scope, another account with a manage key. */
export interface WriteApi {
  t: AppUnderTest;
  owner: Owner;
  intruder: Owner;
  /** Bearer headers of the owner's keys, one per scope. */
  keys: Record<'read' | 'triage' | 'manage', Record<string, string>>;
  intruderManage: Record<string, string>;
  /** Every route the app registered. */
  routes: RouteOptions[];
  send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Response>;
}

export const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

/** Builds the app before the file's tests and closes it after; the fields are set once built. */
export function useWriteApi(): WriteApi {
  const api = { keys: { read: {}, triage: {}, manage: {} }, routes: [] as RouteOptions[] } as unknown as WriteApi;
  api.send = (method, path, headers, body) =>
    api.t.fetch(path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  beforeAll(async () => {
    api.t = await buildTestApp({ onRoute: (route) => api.routes.push(route) });
    api.owner = await createOwner(api.t.services, { planId: 'business' });
    api.intruder = await createOwner(api.t.services, { planId: 'business' });
    for (const scope of ['read', 'triage', 'manage'] as const) {
      api.keys[scope] = { authorization: `Bearer ${(await api.t.services.apiKeys.createApiKey(api.owner.account.id, scope, scope)).apiKey}` };
    }
    api.intruderManage = { authorization: `Bearer ${(await api.t.services.apiKeys.createApiKey(api.intruder.account.id, 'manage', 'manage')).apiKey}` };
  });
  afterAll(async () => api.t?.close());
  return api;
}
