import type { ServerResponse } from 'node:http';
import selfsigned from 'selfsigned';
import { json, StandInServer, type StandInRequest } from './service-stand-in.js';

export interface StandInSubscriber {
  id: number;
  email: string;
  name: string;
  status: string;
  lists: Array<{ id: number; subscription_status: string }>;
}

/**
 * listmonk's subscriber API on loopback over HTTPS (an instance the owner runs, reached through the
 * SSRF-safe sender), checking what listmonk checks: `Authorization: token user:token`, one
 * subscriber per address (409 "E-mail already exists." on a second POST), lists that exist.
 * Subscriptions made without `preconfirm_subscriptions` are unconfirmed on double opt-in lists, and
 * each opt-in mail listmonk would send is counted.
 */
export class ListmonkStandIn {
  server!: StandInServer;
  ca = '';
  readonly subscribers: StandInSubscriber[] = [];
  /** Opt-in confirmation mails, by address. */
  readonly optins: string[] = [];
  private readonly users = new Map<string, string>();
  private readonly lists = new Map<number, { name: string; optin: 'single' | 'double' }>();

  async start(): Promise<void> {
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
    });
    this.ca = pems.cert;
    this.server = new StandInServer((req, res) => this.handle(req, res), { key: pems.private, cert: pems.cert });
    await this.server.start();
  }

  addUser(username: string, token: string): void {
    this.users.set(username, token);
  }

  createList(id: number, name: string, optin: 'single' | 'double' = 'double'): void {
    this.lists.set(id, { name, optin });
  }

  subscriber(email: string): StandInSubscriber | undefined {
    return this.subscribers.find((s) => s.email === email.toLowerCase());
  }

  private subscribe(subscriber: StandInSubscriber, lists: number[], status: string): void {
    for (const id of lists) {
      const list = this.lists.get(id);
      if (!list) continue;
      const given = list.optin === 'double' ? status : 'confirmed';
      const current = subscriber.lists.find((l) => l.id === id);
      if (!current) subscriber.lists.push({ id, subscription_status: given });
      else if (current.subscription_status === 'unsubscribed') current.subscription_status = given;
    }
  }

  private optin(subscriber: StandInSubscriber): void {
    const pending = subscriber.lists.some((l) => l.subscription_status === 'unconfirmed' && this.lists.get(l.id)?.optin === 'double');
    if (pending) this.optins.push(subscriber.email);
  }

  private handle(req: StandInRequest, res: ServerResponse): void {
    const credentials = /^token ([^:]+):(.+)$/.exec(req.headers.authorization ?? '');
    if (!credentials || this.users.get(credentials[1]!) !== credentials[2]) return json(res, 403, { message: 'invalid API credentials' });
    const body = req.body === '' ? {} : (JSON.parse(req.body) as Record<string, unknown>);
    if (req.method === 'POST' && req.path === '/api/subscribers') {
      const email = String(body.email ?? '').toLowerCase();
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) return json(res, 400, { message: 'Invalid email.' });
      if (typeof body.name !== 'string' || body.name === '') return json(res, 400, { message: 'Invalid name.' });
      if (this.subscriber(email)) return json(res, 409, { message: 'E-mail already exists.' });
      const subscriber: StandInSubscriber = { id: this.subscribers.length + 1, email, name: body.name, status: String(body.status), lists: [] };
      this.subscribers.push(subscriber);
      this.subscribe(subscriber, (body.lists as number[]) ?? [], body.preconfirm_subscriptions === true ? 'confirmed' : 'unconfirmed');
      if (body.preconfirm_subscriptions !== true) this.optin(subscriber);
      return json(res, 200, { data: { ...subscriber, lists: subscriber.lists.map((l) => l.id) } });
    }
    if (req.method === 'GET' && req.path === '/api/subscribers') {
      // The one query Formgate sends: LOWER(subscribers.email) = '<address>', quotes doubled.
      const m = /^LOWER\(subscribers\.email\) = '((?:[^']|'')*)'$/.exec(req.query.get('query') ?? '');
      if (!m) return json(res, 400, { message: 'Error querying subscribers' });
      const found = this.subscriber(m[1]!.replace(/''/g, "'"));
      return json(res, 200, { data: { results: found ? [found] : [], total: found ? 1 : 0, page: 1, per_page: 1 } });
    }
    if (req.method === 'PUT' && req.path === '/api/subscribers/lists') {
      if (body.action !== 'add' || typeof body.status !== 'string') return json(res, 400, { message: 'Invalid action.' });
      for (const id of body.ids as number[]) {
        const subscriber = this.subscribers.find((s) => s.id === id);
        if (subscriber) this.subscribe(subscriber, body.target_list_ids as number[], body.status);
      }
      return json(res, 200, { data: true });
    }
    const optin = /^\/api\/subscribers\/(\d+)\/optin$/.exec(req.path);
    if (req.method === 'POST' && optin) {
      const subscriber = this.subscribers.find((s) => s.id === Number(optin[1]));
      if (!subscriber) return json(res, 404, { message: 'Subscriber not found.' });
      this.optin(subscriber);
      return json(res, 200, { data: true });
    }
    const list = /^\/api\/lists\/(\d+)$/.exec(req.path);
    if (req.method === 'GET' && list) {
      const found = this.lists.get(Number(list[1]));
      return found ? json(res, 200, { data: { id: Number(list[1]), ...found } }) : json(res, 404, { message: 'List not found.' });
    }
    json(res, 404, { message: 'Unknown route' });
  }
}
