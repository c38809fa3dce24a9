/**
 * What a key may do, each scope all the one before it may: `read` everything of its account,
 * `triage` (also mark spam / not spam), `manage` (also create, change and delete forms and their
 * integrations through the API). `read` stays the default: writing needs asking for.
 */
export const API_KEY_SCOPES = ['read', 'triage', 'manage'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** The scope grants what `needed` grants (scopes are ordered: read < triage < manage). */
export function scopeAllows(scope: ApiKeyScope, needed: ApiKeyScope): boolean {
  return API_KEY_SCOPES.indexOf(scope) >= API_KEY_SCOPES.indexOf(needed);
}

export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  /** The first characters of the secret, safe to display. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  scope: ApiKeyScope;
}
