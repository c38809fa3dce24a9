/** What a key may do: `read` everything of its account, or also `triage` (mark spam / not spam). */
export const API_KEY_SCOPES = ['read', 'triage'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

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
