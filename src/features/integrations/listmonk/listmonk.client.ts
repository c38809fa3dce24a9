import type { ApiAnswer, ApiRequest } from '../api-client.js';
import type { KindDeps } from '../service-kind.js';

export interface ListmonkAccount {
  /** The instance's address, without a trailing slash (`https://lists.example.com`). */
  url: string;
  username: string;
  token: string;
}

/** A subscriber as listmonk lists it: its ID and each list's subscription. */
export interface ListmonkSubscriber {
  id: number;
  lists: Array<{ id: number; status: string }>;
}

/** A string literal of listmonk's SQL subscriber query: quotes doubled, so an address can only be a value. */
const sqlText = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * listmonk's API at the owner's instance, every request through the SSRF-safe sender (the
 * address is the owner's): `Authorization: token user:token`.
 */
export class ListmonkClient {
  constructor(private readonly http: KindDeps['ownerHttp']) {}

  private call(account: ListmonkAccount, request: Omit<ApiRequest, 'url' | 'headers'> & { path: string }): Promise<ApiAnswer> {
    const { path, ...rest } = request;
    return this.http.request({ ...rest, url: `${account.url}${path}`, headers: { authorization: `token ${account.username}:${account.token}` } });
  }

  /** A new subscriber on the lists, unconfirmed on double opt-in lists (listmonk mails the confirmation); 409 when the address exists. */
  createSubscriber(account: ListmonkAccount, subscriber: { email: string; name: string; lists: number[] }): Promise<ApiAnswer> {
    return this.call(account, { method: 'POST', path: '/api/subscribers', json: { ...subscriber, status: 'enabled', preconfirm_subscriptions: false } });
  }

  /** The subscriber with this address, if there is one (or the answer that refused the search). */
  async findSubscriber(account: ListmonkAccount, email: string): Promise<{ subscriber?: ListmonkSubscriber; answer: ApiAnswer }> {
    const query = new URLSearchParams({ query: `LOWER(subscribers.email) = ${sqlText(email.toLowerCase())}`, per_page: '1' });
    const answer = await this.call(account, { method: 'GET', path: `/api/subscribers?${query}` });
    const results = (answer.body as { data?: { results?: unknown } } | undefined)?.data?.results;
    const first = Array.isArray(results) ? (results[0] as { id?: unknown; lists?: unknown } | undefined) : undefined;
    if (answer.status !== 200 || typeof first?.id !== 'number') return { answer };
    const lists = Array.isArray(first.lists) ? (first.lists as Array<{ id?: unknown; subscription_status?: unknown }>) : [];
    return { answer, subscriber: { id: first.id, lists: lists.map((l) => ({ id: Number(l.id), status: String(l.subscription_status) })) } };
  }

  /** Adds an existing subscriber to lists, unconfirmed (it confirms through the opt-in mail). */
  addToLists(account: ListmonkAccount, subscriberId: number, lists: number[]): Promise<ApiAnswer> {
    return this.call(account, { method: 'PUT', path: '/api/subscribers/lists', json: { ids: [subscriberId], action: 'add', target_list_ids: lists, status: 'unconfirmed' } });
  }

  /** Mails the subscriber the opt-in confirmation of its unconfirmed double opt-in lists. */
  sendOptin(account: ListmonkAccount, subscriberId: number): Promise<ApiAnswer> {
    return this.call(account, { method: 'POST', path: `/api/subscribers/${subscriberId}/optin`, json: {} });
  }

  getList(account: ListmonkAccount, list: number): Promise<ApiAnswer> {
    return this.call(account, { method: 'GET', path: `/api/lists/${list}` });
  }
}
