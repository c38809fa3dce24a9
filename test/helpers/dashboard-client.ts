import type { AppFetch } from './inject-fetch.js';

/**
 * A minimal browser stand-in for dashboard route tests: keeps cookies, reads the CSRF token of
 * the last page, and posts forms the way a browser would (urlencoded, redirects not followed).
 * It talks to a server at a base URL, or to the app under test through its `fetch`.
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  lastSetCookies: string[] = [];
  csrf = '';

  private readonly fetch: AppFetch;

  constructor(target: string | { fetch: AppFetch }) {
    this.fetch = typeof target === 'string' ? (path, init) => fetch(`${target}${String(path)}`, init) : target.fetch;
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: Response): void {
    this.lastSetCookies = res.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string): Promise<{ res: Response; html: string }> {
    const res = await this.fetch(path, { headers: { cookie: this.cookieHeader() }, redirect: 'manual' });
    this.remember(res);
    const html = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html);
    if (token) this.csrf = token[1]!;
    return { res, html };
  }

  async post(
    path: string,
    fields: Record<string, string>,
    options: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<{ res: Response; html: string }> {
    const body = new URLSearchParams(fields);
    if (options.csrf !== false) body.set('_csrf', this.csrf);
    return this.send(path, body.toString(), 'application/x-www-form-urlencoded', options.headers);
  }

  /** Posts fields as given, repeats and order kept (a crafted request, or several checkboxes). */
  async postPairs(path: string, pairs: Array<[string, string]>, options: { csrf?: boolean } = {}): Promise<{ res: Response; html: string }> {
    const body = new URLSearchParams(pairs);
    if (options.csrf !== false) body.set('_csrf', this.csrf);
    return this.send(path, body.toString(), 'application/x-www-form-urlencoded');
  }

  /** Posts a JSON body with the CSRF token (the dashboard's routes accept what Fastify parses). */
  async postJson(path: string, value: Record<string, unknown>): Promise<{ res: Response; html: string }> {
    return this.send(path, JSON.stringify({ ...value, _csrf: this.csrf }), 'application/json');
  }

  private async send(path: string, body: string, contentType: string, headers: Record<string, string> = {}): Promise<{ res: Response; html: string }> {
    const res = await this.fetch(path, {
      method: 'POST',
      headers: { ...headers, cookie: this.cookieHeader(), 'content-type': contentType },
      body,
      redirect: 'manual',
    });
    this.remember(res);
    const html = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html);
    if (token) this.csrf = token[1]!;
    return { res, html };
  }

  /** Signs up through the pages and ends logged in. */
  async signUp(email: string, password = 'correct horse battery'): Promise<void> {
    await this.get('/dashboard/signup');
    const { res } = await this.post('/dashboard/signup', { email, displayName: 'Owner', password });
    if (res.status !== 303) throw new Error(`sign-up failed with ${res.status}`);
    // As a browser does: the page the sign-up leads to carries the new session's CSRF token.
    await this.get(res.headers.get('location') ?? '/dashboard/forms');
  }
}
