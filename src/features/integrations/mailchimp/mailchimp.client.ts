import { createHash } from 'node:crypto';
import type { ApiAnswer, ApiClient } from '../api-client.js';

/** Mailchimp's name for a member in its URLs: MD5 of the address in lowercase. */
export const subscriberHash = (email: string): string => createHash('md5').update(email.trim().toLowerCase()).digest('hex');

export interface MailchimpMember {
  email: string;
  /** FNAME and LNAME; an empty one is left out, so a repeat without a name keeps the one stored. */
  mergeFields: Record<string, string>;
}

/**
 * Mailchimp's Marketing API (3.0) at a data centre's base: a member added or updated in one PUT
 * on its subscriber hash (`status_if_new: pending` = double opt-in: Mailchimp mails the
 * confirmation; an existing member keeps its status, an unsubscribe too), and the audience read
 * for "Send test". HTTP Basic with any user name and the API key.
 */
export class MailchimpClient {
  constructor(private readonly http: ApiClient) {}

  private headers(apiKey: string) {
    return { authorization: `Basic ${Buffer.from(`formgate:${apiKey}`).toString('base64')}` };
  }

  upsertMember(baseUrl: string, apiKey: string, audience: string, member: MailchimpMember): Promise<ApiAnswer> {
    return this.http.request({
      method: 'PUT',
      url: `${baseUrl}/3.0/lists/${encodeURIComponent(audience)}/members/${subscriberHash(member.email)}`,
      headers: this.headers(apiKey),
      json: { email_address: member.email, status_if_new: 'pending', ...(Object.keys(member.mergeFields).length > 0 ? { merge_fields: member.mergeFields } : {}) },
    });
  }

  readAudience(baseUrl: string, apiKey: string, audience: string): Promise<ApiAnswer> {
    return this.http.request({ method: 'GET', url: `${baseUrl}/3.0/lists/${encodeURIComponent(audience)}?fields=id,name`, headers: this.headers(apiKey) });
  }
}
