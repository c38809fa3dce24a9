import { randomUUID } from 'node:crypto';
import type { AccountState, ConfigTarget, ConfigWriter } from './config.types.js';

/** A server's management API, with a `manage` key: what the file names is read and written there. */
export class RemoteConfigTarget implements ConfigTarget {
  readonly readsSecrets = false;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async read(_account: string | undefined): Promise<AccountState> {
    void this.baseUrl;
    void this.apiKey;
    void this.fetchImpl;
    void randomUUID;
    throw new Error('not ready');
  }

  async write(_accountId: string, _run: (writer: ConfigWriter) => Promise<void>): Promise<void> {
    throw new Error('not ready');
  }

  async deleteForm(_form: { id: string; etag?: string | undefined }): Promise<void> {
    throw new Error('not ready');
  }
}
