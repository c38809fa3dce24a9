import type { Config } from '../../../platform/config.js';
import { targetUrlProblem } from '../../../platform/lib/target-url.js';
import { consentFieldProblem, DEFAULT_CONSENT_FIELD, NO_EMAIL, signUpAddress, signUpName, signUpSkip } from '../newsletter.js';
import { isSuccess, outcomeOfAnswer, settled } from '../service-answer.js';
import type { KindDelivery, KindDeps, KindInput, KindOutcome, KindSender, KindTarget, ParsedSettings, ServiceKind } from '../service-kind.js';
import { ListmonkClient, type ListmonkAccount } from './listmonk.client.js';

const MAX_LISTS = 20;
const USERNAME = /^[A-Za-z0-9._@+-]{1,200}$/;

function parse(input: KindInput, config: Config): ParsedSettings | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string).trim() : '');
  // The admin's address is taken too: the API lives beside it.
  const raw = text('url').replace(/\/+$/, '').replace(/\/(admin|api)(\/.*)?$/, '');
  const urlProblem = raw === '' ? 'required: the address of your listmonk, as in https://lists.example.com' : targetUrlProblem(raw, config.hookAllowPrivateTargets);
  if (urlProblem) problems.url = urlProblem;
  const username = text('username');
  if (username === '') problems.username = 'required: the API user’s name (Admin → Users)';
  else if (!USERNAME.test(username)) problems.username = 'must be an API user name: letters, digits and . _ @ + -';
  const token = text('token');
  if (token === '') problems.token = 'required: the API user’s token';
  else if (token.length > 300 || /[\s\u0000-\u001f]/.test(token)) problems.token = 'must be one token, without spaces';
  const values = input.lists === undefined ? [] : Array.isArray(input.lists) ? input.lists : [input.lists];
  const words = values.flatMap((v) => v.split(/[\s,]+/)).filter((w) => w !== '');
  const lists = [...new Set(words.map(Number))];
  if (words.length === 0) problems.lists = 'required: at least one list ID (Lists: the number beside each list)';
  else if (words.some((w) => !/^\d{1,9}$/.test(w) || Number(w) === 0)) problems.lists = 'must be list IDs: whole numbers, as listmonk shows them';
  else if (lists.length > MAX_LISTS) problems.lists = `at most ${MAX_LISTS} lists`;
  const consentField = text('consentField') || DEFAULT_CONSENT_FIELD;
  const consentProblem = consentFieldProblem(consentField);
  if (consentProblem) problems.consentField = consentProblem;
  if (Object.keys(problems).length > 0) return { problems };
  return { settings: { url: new URL(raw).href.replace(/\/+$/, ''), username, lists, consentField }, secrets: { token } };
}

/**
 * One subscriber per address: a new address is created on the lists, unconfirmed (listmonk mails
 * the opt-in confirmation for double opt-in lists); one listmonk already has (409) is found by its
 * address and added to the lists it is not on yet, and mailed the confirmation while any of them
 * is unconfirmed. "Send test" reads each list: it checks the address, the user and token and the
 * list IDs, and signs no one up.
 */
class ListmonkSender implements KindSender {
  private readonly client: ListmonkClient;

  constructor(deps: KindDeps) {
    this.client = new ListmonkClient(deps.ownerHttp);
  }

  async send(target: KindTarget, delivery: KindDelivery): Promise<KindOutcome> {
    const account: ListmonkAccount = { url: String(target.settings.url), username: String(target.settings.username), token: String(target.secrets.token) };
    const lists = (target.settings.lists as number[]) ?? [];
    if (delivery.test) return this.check(account, lists);
    const email = signUpAddress(Object.fromEntries(delivery.fields.map((f) => [f.name, f.value])));
    if (email === undefined) return settled({ kind: 'failed', reason: NO_EMAIL }, undefined);
    const { first, last } = signUpName(delivery.fields);
    // listmonk requires a name: the address's local part when the form asks for none.
    const name = `${first} ${last}`.trim() || email.slice(0, email.lastIndexOf('@'));
    const created = await this.client.createSubscriber(account, { email, name, lists });
    if (created.status !== 409) return settled(outcomeOfAnswer('listmonk', created), created);
    return this.update(account, email, lists, created.durationMs);
  }

  /** The address exists: the lists it is not on are added, and the confirmation mailed while one is unconfirmed. */
  private async update(account: ListmonkAccount, email: string, lists: number[], spentMs: number): Promise<KindOutcome> {
    const found = await this.client.findSubscriber(account, email);
    spentMs += found.answer.durationMs;
    if (!found.subscriber) {
      if (!isSuccess(found.answer)) return settled(outcomeOfAnswer('listmonk', found.answer), found.answer, spentMs - found.answer.durationMs);
      return settled({ kind: 'retry', reason: 'listmonk said the address exists but did not find its subscriber' }, found.answer, spentMs - found.answer.durationMs);
    }
    const { id, lists: current } = found.subscriber;
    const missing = lists.filter((list) => !current.some((c) => c.id === list && c.status !== 'unsubscribed'));
    let last = found.answer;
    if (missing.length > 0) {
      last = await this.client.addToLists(account, id, missing);
      spentMs += last.durationMs;
      if (!isSuccess(last)) return settled(outcomeOfAnswer('listmonk', last), last, spentMs - last.durationMs);
    }
    const confirmed = lists.every((list) => current.some((c) => c.id === list && c.status === 'confirmed'));
    if (!confirmed) {
      last = await this.client.sendOptin(account, id);
      spentMs += last.durationMs;
    }
    return settled(outcomeOfAnswer('listmonk', last), last, spentMs - last.durationMs);
  }

  private async check(account: ListmonkAccount, lists: number[]): Promise<KindOutcome> {
    let spentMs = 0;
    let last;
    for (const list of lists) {
      last = await this.client.getList(account, list);
      spentMs += last.durationMs;
      if (isSuccess(last)) continue;
      const outcome = outcomeOfAnswer('listmonk', last);
      const shown = last.status === 404 && outcome.kind !== 'sent' ? { ...outcome, reason: `listmonk has no list ${list}, or the API user may not see it` } : outcome;
      return settled(shown, last, spentMs - last.durationMs);
    }
    return last === undefined ? settled({ kind: 'failed', reason: 'no list to check' }, undefined) : settled({ kind: 'sent' }, last, spentMs - last.durationMs);
  }
}

export const listmonkKind: ServiceKind = {
  kind: 'listmonk',
  label: 'listmonk',
  item: 'sign-up',
  help: 'Create an API user under Admin → Users (API type, a role that may manage subscribers) and copy its token; list IDs are the numbers beside your lists. Only a submission whose consent field is ticked and that has a valid email is signed up, and listmonk asks the person to confirm on double opt-in lists.',
  sequential: false,
  fields: [
    { name: 'url', label: 'listmonk address', option: '--url <url>', required: true, placeholder: 'https://lists.example.com' },
    { name: 'username', label: 'API user', option: '--username <name>', required: true, placeholder: 'formgate' },
    { name: 'token', label: 'API token', option: '--token <token>', secret: true, required: true },
    { name: 'lists', label: 'List IDs, one a line', option: '--list <id...>', repeated: true, required: true, placeholder: '3' },
    { name: 'consentField', label: 'Consent field', option: '--consent-field <field>', placeholder: DEFAULT_CONSENT_FIELD },
  ],
  parse,
  createSender: (deps) => new ListmonkSender(deps),
  skip: signUpSkip,
};
