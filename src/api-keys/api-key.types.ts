export interface ApiKey {
  id: string;
  accountId: string;
  name: string;
  /** The first characters of the secret, safe to display. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
