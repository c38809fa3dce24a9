import { expect } from 'vitest';
import type { DashboardClient } from './dashboard-client.js';

/**
 * Every dashboard POST must refuse a request without the page's CSRF token, and one with a
 * forged token, before it changes anything: 403 and the "Please try again" page.
 */
export async function expectCsrfRefused(client: DashboardClient, path: string, fields: Record<string, string> = {}): Promise<void> {
  const missing = await client.post(path, fields, { csrf: false });
  expect(missing.res.status, `${path} without a token`).toBe(403);
  expect(missing.html).toContain('Please try again');
  const forged = await client.post(path, { ...fields, _csrf: 'forged-token' }, { csrf: false });
  expect(forged.res.status, `${path} with a forged token`).toBe(403);
}
