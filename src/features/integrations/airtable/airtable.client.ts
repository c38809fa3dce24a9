import type { ApiAnswer, ApiClient } from '../api-client.js';

/** Airtable allows 5 requests a second per base. */
export const REQUESTS_PER_SECOND = 5;
/** The second, with room for requests that take longer on the way than the one five before. */
const WINDOW_MS = 1100;

/**
 * Airtable's create-records call, keeping to its limit of 5 requests a second per base in this
 * process: a request waits until the fifth before it is a second old (and a little more, for the way there). (A 429 still comes when
 * other clients share the base; the sender waits it out.)
 */
export class AirtableClient {
  private readonly recent = new Map<string, number[]>();
  /** Each base's requests leave in turn, so two waiting ones cannot both take the same free slot. */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(
    private readonly http: ApiClient,
    private readonly baseUrl: string,
  ) {}

  async createRecord(token: string, base: string, table: string, fields: Record<string, string>): Promise<ApiAnswer> {
    await this.slot(base);
    return this.http.request({
      method: 'POST',
      url: `${this.baseUrl}/v0/${encodeURIComponent(base)}/${encodeURIComponent(table)}`,
      headers: { authorization: `Bearer ${token}` },
      json: { records: [{ fields }], typecast: true },
    });
  }

  private slot(base: string): Promise<void> {
    const turn = (this.turns.get(base) ?? Promise.resolve()).then(async () => {
      const times = (this.recent.get(base) ?? []).filter((at) => at > Date.now() - WINDOW_MS);
      if (times.length >= REQUESTS_PER_SECOND) {
        const waitMs = times[times.length - REQUESTS_PER_SECOND]! + WINDOW_MS - Date.now();
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
      times.push(Date.now());
      this.recent.set(base, times.slice(-REQUESTS_PER_SECOND));
    });
    this.turns.set(base, turn);
    return turn;
  }
}
