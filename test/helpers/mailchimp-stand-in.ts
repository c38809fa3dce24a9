import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { json, StandInServer, type StandInRequest } from './service-stand-in.js';

export interface StandInMember {
  email_address: string;
  status: string;
  merge_fields: Record<string, string>;
}

const problem = (res: ServerResponse, status: number, title: string, detail: string) =>
  json(res, status, { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: 'stand-in' }, { 'content-type': 'application/problem+json; charset=utf-8' });

/**
 * Mailchimp's Marketing API (members of an audience) on loopback, checking what Mailchimp checks:
 * HTTP Basic with any user name and the API key, an audience the key may reach, the path's
 * subscriber hash being MD5 of the lowercase `email_address`. Members are kept by that hash: a
 * PUT on one that exists updates it (never its status); a new one takes `status_if_new`.
 */
export class MailchimpStandIn {
  readonly server = new StandInServer((req, res) => this.handle(req, res));
  private readonly audiences = new Map<string, { apiKey: string; name: string; members: Map<string, StandInMember> }>();
  /** Answers given, in turn, before any check (Mailchimp busy: 429 with Retry-After, 503). */
  readonly answerNext: Array<{ status: number; headers?: Record<string, string> }> = [];
  /** Keys of accounts Mailchimp has disabled: every request answers 403. */
  readonly disabledKeys = new Set<string>();

  start(): Promise<void> {
    return this.server.start();
  }

  createAudience(id: string, apiKey: string, name = 'Newsletter'): void {
    this.audiences.set(id, { apiKey, name, members: new Map() });
  }

  members(audience: string): StandInMember[] {
    return [...(this.audiences.get(audience)?.members.values() ?? [])];
  }

  /** The requests that reached an audience's members (a skipped sign-up makes none). */
  memberRequests(audience: string): StandInRequest[] {
    return this.server.requests.filter((r) => r.path.startsWith(`/3.0/lists/${audience}/members/`));
  }

  private handle(req: StandInRequest, res: ServerResponse): void {
    const next = this.answerNext.shift();
    if (next) return json(res, next.status, { title: 'Busy', status: next.status, detail: 'Try again later.' }, next.headers);
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const key = basic === undefined ? undefined : Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':');
    const m = /^\/3\.0\/lists\/([^/]+)(?:\/members\/([^/]+))?$/.exec(req.path);
    const audience = m ? this.audiences.get(decodeURIComponent(m[1]!)) : undefined;
    if (!key || ![...this.audiences.values()].some((a) => a.apiKey === key)) {
      return problem(res, 401, 'API Key Invalid', "Your API key may be invalid, or you've attempted to access the wrong datacenter.");
    }
    if (this.disabledKeys.has(key)) return problem(res, 403, 'Forbidden', 'This account has been disabled.');
    if (!m || !audience || audience.apiKey !== key) return problem(res, 404, 'Resource Not Found', 'The requested resource could not be found.');
    if (m[2] === undefined) {
      if (req.method !== 'GET') return problem(res, 405, 'Method Not Allowed', 'The requested method and resource are not compatible.');
      return json(res, 200, { id: m[1], name: audience.name });
    }
    if (req.method !== 'PUT') return problem(res, 405, 'Method Not Allowed', 'The requested method and resource are not compatible.');
    const body = JSON.parse(req.body) as { email_address?: string; status_if_new?: string; status?: string; merge_fields?: Record<string, string> };
    if (typeof body.email_address !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.email_address)) {
      return problem(res, 400, 'Invalid Resource', 'Please provide a valid email address.');
    }
    const hash = createHash('md5').update(body.email_address.toLowerCase()).digest('hex');
    if (m[2] !== hash) return problem(res, 400, 'Invalid Resource', 'The resource submitted could not be validated: the subscriber hash does not match the email address.');
    const existing = audience.members.get(hash);
    if (!existing && !['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional'].includes(body.status_if_new ?? body.status ?? '')) {
      return problem(res, 400, 'Invalid Resource', 'The resource submitted could not be validated: status_if_new is required for a new member.');
    }
    const member: StandInMember = existing
      ? { ...existing, merge_fields: { ...existing.merge_fields, ...body.merge_fields }, ...(body.status ? { status: body.status } : {}) }
      : { email_address: body.email_address, status: (body.status ?? body.status_if_new)!, merge_fields: { ...body.merge_fields } };
    audience.members.set(hash, member);
    json(res, 200, { id: hash, ...member, list_id: m[1] });
  }
}
