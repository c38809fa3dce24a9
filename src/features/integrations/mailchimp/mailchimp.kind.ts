import type { Config } from '../../../platform/config.js';
import { consentFieldProblem, DEFAULT_CONSENT_FIELD, NO_EMAIL, signUpAddress, signUpName, signUpSkip } from '../newsletter.js';
import { outcomeOfAnswer, settled } from '../service-answer.js';
import type { KindDelivery, KindDeps, KindInput, KindOutcome, KindSender, KindTarget, ParsedSettings, ServiceKind } from '../service-kind.js';
import { MailchimpClient } from './mailchimp.client.js';

/** An API key: 32 hexadecimal digits, a dash and the data centre (`…-us21`). */
const API_KEY = /^[0-9a-f]{32}-([a-z]{2,4}\d{1,3})$/i;
const AUDIENCE_ID = /^[A-Za-z0-9]{1,32}$/;

function parse(input: KindInput, _config: Config): ParsedSettings | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string).trim() : '');
  const apiKey = text('apiKey');
  const dataCenter = API_KEY.exec(apiKey)?.[1]?.toLowerCase();
  if (apiKey === '') problems.apiKey = 'required: an API key (Profile → Extras → API keys)';
  else if (dataCenter === undefined) problems.apiKey = 'must be a Mailchimp API key: 32 hexadecimal digits, a dash and the data centre, as in …-us21';
  const audience = text('audience');
  if (audience === '') problems.audience = 'required: the audience ID (Audience → Settings → Audience name and defaults)';
  else if (!AUDIENCE_ID.test(audience)) problems.audience = 'must be an audience ID: letters and digits, as in a1b2c3d4e5';
  const consentField = text('consentField') || DEFAULT_CONSENT_FIELD;
  const consentProblem = consentFieldProblem(consentField);
  if (consentProblem) problems.consentField = consentProblem;
  if (Object.keys(problems).length > 0) return { problems };
  return { settings: { audience, dataCenter, consentField }, secrets: { apiKey } };
}

/**
 * One member per address in the audience: a PUT on the subscriber hash adds a new one as
 * `pending` (Mailchimp mails the opt-in confirmation) and updates an existing one (its name;
 * never its status), so a repeat sign-up is still one member. "Send test" reads the audience: it
 * checks the key and the audience ID and signs no one up.
 */
class MailchimpSender implements KindSender {
  private readonly client: MailchimpClient;

  constructor(private readonly deps: KindDeps) {
    this.client = new MailchimpClient(deps.http);
  }

  async send(target: KindTarget, delivery: KindDelivery): Promise<KindOutcome> {
    const apiKey = String(target.secrets.apiKey);
    const audience = String(target.settings.audience);
    const baseUrl = this.deps.config.mailchimpApiUrl ?? `https://${String(target.settings.dataCenter)}.api.mailchimp.com`;
    if (delivery.test) {
      const answer = await this.client.readAudience(baseUrl, apiKey, audience);
      return settled(outcomeOfAnswer('Mailchimp', answer), answer);
    }
    const email = signUpAddress(Object.fromEntries(delivery.fields.map((f) => [f.name, f.value])));
    if (email === undefined) return settled({ kind: 'failed', reason: NO_EMAIL }, undefined);
    const name = signUpName(delivery.fields);
    const mergeFields = Object.fromEntries(Object.entries({ FNAME: name.first, LNAME: name.last }).filter(([, v]) => v !== ''));
    const answer = await this.client.upsertMember(baseUrl, apiKey, audience, { email, mergeFields });
    return settled(outcomeOfAnswer('Mailchimp', answer), answer);
  }
}

export const mailchimpKind: ServiceKind = {
  kind: 'mailchimp',
  label: 'Mailchimp',
  item: 'sign-up',
  help: 'Create an API key under Profile → Extras → API keys; the audience ID is under Audience → Settings → Audience name and defaults. Only a submission whose consent field is ticked and that has a valid email is signed up, and Mailchimp asks the person to confirm.',
  sequential: false,
  fields: [
    { name: 'apiKey', label: 'API key', option: '--api-key <key>', secret: true, required: true, placeholder: '…-us21' },
    { name: 'audience', label: 'Audience ID', option: '--audience <id>', required: true, placeholder: 'a1b2c3d4e5' },
    { name: 'consentField', label: 'Consent field', option: '--consent-field <field>', placeholder: DEFAULT_CONSENT_FIELD },
  ],
  parse,
  createSender: (deps) => new MailchimpSender(deps),
  skip: signUpSkip,
};
