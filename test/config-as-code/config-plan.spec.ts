import { describe, expect, it } from 'vitest';
import { parseConfigFile, resolveSecrets, stringifyConfigFile } from '../../src/features/config-as-code/config-file.js';
import { configFileJsonSchema } from '../../src/features/config-as-code/config-file.schema.js';
import { planConfig } from '../../src/features/config-as-code/config-plan.js';
import { formatPlan, planView } from '../../src/features/config-as-code/config-plan-text.js';
import type { AccountState, FormState } from '../../src/features/config-as-code/config.types.js';

const file = {
  account: 'owner@example.com',
  forms: [
    {
      key: 'contact',
      name: 'Contact',
      settings: { successUrl: 'https://example.com/thanks', accessKey: '${CONTACT_ACCESS_KEY}', blockedTerms: ['casino'] },
      recipients: ['Team@Example.com'],
      integrations: [{ kind: 'slack', name: 'Team chat', url: '${SLACK_URL}' }],
      hooks: [{ targetUrl: 'https://hooks.example.com/in' }],
    },
  ],
} as const;

const yaml = `account: owner@example.com
forms:
  - key: contact
    name: Contact
    settings:
      successUrl: https://example.com/thanks
      accessKey: "\${CONTACT_ACCESS_KEY}"
      blockedTerms: [casino]
    recipients: [Team@Example.com]
    integrations:
      - { kind: slack, name: Team chat, url: "\${SLACK_URL}" }
    hooks:
      - targetUrl: https://hooks.example.com/in
`;

const environment = { CONTACT_ACCESS_KEY: 'sesame', SLACK_URL: 'https://hooks.slack.com/services/T/B/x' };

function formState(overrides: Partial<FormState> = {}): FormState {
  return {
    id: 'frm_1',
    key: 'contact',
    name: 'Contact',
    settings: {
      isActive: true, successUrl: 'https://example.com/thanks', errorUrl: null, allowedRedirectHosts: [], turnstileSiteKey: null, blockedTerms: ['casino'],
      blockedEmails: [], allowedOrigins: [], maxLinks: null, retentionDays: null, storeIp: 'full', notifyMode: 'each', botCheck: 'none',
      hcaptchaSiteKey: null, recaptchaSiteKey: null, recaptchaMinScore: 0.5, altchaComplexity: 'medium', minFillSeconds: 0, spamFilter: 'off',
      notifySubject: 'New submission: {{form.name}}', autoReply: { enabled: false, field: 'email', subject: null, body: null }, autoReplyDailyLimit: 200,
      thanksTitle: null, thanksMessage: null, language: 'auto', requiredFields: [], files: 'off', maxFiles: 5, maxFileBytes: 1, maxTotalBytes: 1, fileTypes: [],
    },
    secrets: { accessKey: { set: true, value: 'sesame' }, turnstileSecret: { set: false }, hcaptchaSecret: { set: false }, recaptchaSecret: { set: false } },
    recipients: ['team@example.com'],
    integrations: [{ id: 'int_1', kind: 'slack', name: 'Team chat', enabled: true, chatId: null, url: { set: true, value: environment.SLACK_URL }, token: { set: false }, settings: {}, secrets: {} }],
    hooks: [{ id: 'hook_1', targetUrl: 'https://hooks.example.com/in' }],
    ...overrides,
  };
}

const state = (...forms: FormState[]): AccountState => ({ accountId: 'acc_1', email: 'owner@example.com', forms });
const options = { prune: false, writeSecrets: false };

describe('the configuration file', () => {
  it('reads the same configuration from JSON and from YAML', () => {
    expect(parseConfigFile(yaml, 'yaml')).toEqual(parseConfigFile(JSON.stringify(file), 'json'));
    const round = parseConfigFile(stringifyConfigFile(parseConfigFile(yaml, 'yaml'), 'yaml'), 'yaml');
    expect(round).toEqual(parseConfigFile(yaml, 'yaml'));
  });

  it('refuses an inline secret, naming where it is', () => {
    const inline = { forms: [{ key: 'a', name: 'A', settings: { accessKey: 'sesame' }, integrations: [{ kind: 'discord', name: 'D', url: 'https://discord.com/api/webhooks/1/x' }] }] };
    expect(() => parseConfigFile(JSON.stringify(inline), 'json')).toThrow(
      expect.objectContaining({
        fieldErrors: {
          'forms.0.settings.accessKey': expect.stringContaining('${VARIABLE} reference'),
          'forms.0.integrations.0.url': expect.stringContaining('never the secret itself'),
        },
      }),
    );
  });

  it('refuses unknown settings, a key used twice and malformed text', () => {
    const twice = { forms: [{ key: 'a', name: 'A', settings: { colour: 'red' } }, { key: 'a', name: 'B' }] };
    expect(() => parseConfigFile(JSON.stringify(twice), 'json')).toThrow(
      expect.objectContaining({ fieldErrors: { 'forms.0.settings': expect.stringContaining('colour'), 'forms.1.key': '"a" names two forms' } }),
    );
    expect(() => parseConfigFile('{"forms": [', 'json')).toThrow(/not valid JSON/);
    expect(() => parseConfigFile('forms: [a: b: c', 'yaml')).toThrow(/not valid YAML/);
  });

  it('names every missing variable at once, and resolves the others', () => {
    const parsed = parseConfigFile(JSON.stringify(file), 'json');
    expect(() => resolveSecrets(parsed, { SLACK_URL: 'x' })).toThrow(
      expect.objectContaining({ fieldErrors: { 'forms.0.settings.accessKey': 'the environment variable CONTACT_ACCESS_KEY is not set' } }),
    );
    expect(() => resolveSecrets(parsed, {})).toThrow(expect.objectContaining({ fieldErrors: expect.objectContaining({ 'forms.0.integrations.0.url': expect.stringContaining('SLACK_URL') }) }));
    const [form] = resolveSecrets(parsed, environment);
    expect(form!.settings!.accessKey).toBe('sesame');
    expect(form!.integrations![0]!.url).toBe(environment.SLACK_URL);
  });

  it('has a JSON Schema that editors can use', () => {
    const schema = configFileJsonSchema('https://forms.example.com/v1/config.schema.json');
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://forms.example.com/v1/config.schema.json', required: ['forms'] });
    const settings = (schema as any).properties.forms.items.properties.settings;
    expect(settings.additionalProperties).toBe(false);
    expect(settings.properties.accessKey.anyOf[0].pattern).toBe('^\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}$');
  });
});

describe('the plan', () => {
  const forms = () => resolveSecrets(parseConfigFile(yaml, 'yaml'), environment);

  it('changes nothing when the account is as the file says', () => {
    const plan = planConfig(forms(), state(formState()), options);
    expect(plan.changes).toBe(0);
    expect(plan.forms.map((f) => f.action)).toEqual(['unchanged']);
    expect(formatPlan(planView(plan))).toContain('No changes.');
  });

  it('lists each changed setting old → new, and only those', () => {
    const plan = planConfig(forms(), state(formState({ settings: { ...formState().settings, successUrl: 'https://old.example.com/' } })), options);
    expect(plan.changes).toBe(1);
    expect(plan.forms[0]).toMatchObject({ action: 'update', settings: [{ name: 'successUrl', from: 'https://old.example.com/', to: 'https://example.com/thanks' }], secrets: [] });
    expect(plan.forms[0]!.write).toEqual({ successUrl: 'https://example.com/thanks' });
    expect(formatPlan(planView(plan))).toContain('successUrl: "https://old.example.com/" → "https://example.com/thanks"');
  });

  it('shows a secret as changed or not, never its value', () => {
    const current = formState({ secrets: { ...formState().secrets, accessKey: { set: true, value: 'old-secret' } } });
    const plan = planConfig(forms(), state(current), options);
    expect(plan.forms[0]!.secrets).toEqual([{ name: 'accessKey', change: 'changed' }]);
    const text = formatPlan(planView(plan));
    expect(text).toContain('accessKey: secret changed');
    expect(text).not.toContain('sesame');
    expect(text).not.toContain('old-secret');
  });

  it('does not compare a secret it cannot read, unless told to write it again', () => {
    const remote = formState({ secrets: { ...formState().secrets, accessKey: { set: true } }, integrations: [{ ...formState().integrations[0]!, url: { set: true } }] });
    const plan = planConfig(forms(), state(remote), options);
    expect(plan.changes).toBe(0);
    expect(plan.forms[0]!.secrets).toEqual([{ name: 'accessKey', change: 'not compared' }]);
    const forced = planConfig(forms(), state(remote), { prune: false, writeSecrets: true });
    expect(forced.forms[0]).toMatchObject({ action: 'update', secrets: [{ name: 'accessKey', change: 'written again' }], integrations: [{ action: 'update', kind: 'slack', id: 'int_1', reason: 'url: secret written again' }] });
  });

  it('updates an integration whose secret changed, keeping its ID, and adds and removes the rest', () => {
    const current = formState({
      integrations: [
        { ...formState().integrations[0]!, url: { set: true, value: 'https://hooks.slack.com/services/T/B/old' } },
        { id: 'int_2', kind: 'discord', name: 'Old', enabled: true, chatId: null, url: { set: true, value: 'https://discord.com/api/webhooks/1/x' }, token: { set: false }, settings: {}, secrets: {} },
      ],
      recipients: ['old@example.com'],
      hooks: [{ id: 'hook_2', targetUrl: 'https://old.example.com/hook' }],
    });
    const plan = planConfig(forms(), state(current), options);
    expect(plan.forms[0]!.integrations).toEqual([
      expect.objectContaining({ action: 'update', kind: 'slack', name: 'Team chat', id: 'int_1', changes: { url: environment.SLACK_URL }, reason: 'url: secret changed' }),
      expect.objectContaining({ action: 'remove', kind: 'discord', name: 'Old', id: 'int_2' }),
    ]);
    expect(plan.forms[0]!.recipients).toEqual({ add: ['team@example.com'], remove: ['old@example.com'], list: ['team@example.com'] });
    expect(plan.forms[0]!.hooks).toEqual({ add: ['https://hooks.example.com/in'], remove: [{ id: 'hook_2', targetUrl: 'https://old.example.com/hook' }] });
    expect(formatPlan(planView(plan))).not.toContain('hooks.slack.com');
  });

  it('leaves forms the file does not name alone, and deletes them only with prune', () => {
    const other = formState({ id: 'frm_2', key: 'frm_2', name: 'Other' });
    const kept = planConfig(forms(), state(formState(), other), options);
    expect(kept.changes).toBe(0);
    expect(kept.forms[1]).toMatchObject({ action: 'untouched', id: 'frm_2' });
    expect(formatPlan(planView(kept))).toContain('not in the file, left as it is (--prune would delete it)');
    const pruned = planConfig(forms(), state(formState(), other), { prune: true, writeSecrets: false });
    expect(pruned.changes).toBe(1);
    expect(pruned.forms[1]).toMatchObject({ action: 'delete', id: 'frm_2' });
    expect(formatPlan(planView(pruned))).toContain('- form frm_2 "Other": delete, with its submissions (--prune)');
  });

  it('creates a form the account does not have, with what the file gives', () => {
    const plan = planConfig(forms(), state(), options);
    expect(plan.forms[0]).toMatchObject({ action: 'create', key: 'contact', write: { name: 'Contact', successUrl: 'https://example.com/thanks', accessKey: 'sesame', blockedTerms: ['casino'] } });
    expect(plan.forms[0]!.secrets).toEqual([{ name: 'accessKey', change: 'set' }]);
    expect(formatPlan(planView(plan))).toMatch(/^\+ form contact "Contact": create$/m);
  });
});

describe('service integrations in the configuration file', () => {
  const withService = (integration: Record<string, unknown>) => JSON.stringify({ forms: [{ key: 'signup', name: 'Sign-up', integrations: [integration] }] });

  it('takes a service kind by its declared fields, its secrets only as references, and lists them in the JSON Schema', () => {
    const parsed = parseConfigFile(withService({ kind: 'listmonk', name: 'List', url: 'https://lists.example.com', username: 'formgate', token: '${LISTMONK_TOKEN}', lists: ['3'] }), 'json');
    expect(parsed.forms[0]!.integrations).toEqual([{ kind: 'listmonk', name: 'List', url: 'https://lists.example.com', username: 'formgate', token: '${LISTMONK_TOKEN}', lists: ['3'] }]);
    expect(() => parseConfigFile(withService({ kind: 'mailchimp', name: 'List', audience: 'a1', apiKey: 'inline-key' }), 'json')).toThrow(
      expect.objectContaining({ fieldErrors: { 'forms.0.integrations.0.apiKey': expect.stringContaining('${VARIABLE}') } }),
    );
    expect(() => parseConfigFile(withService({ kind: 'sheets', name: 'Rows', spreadsheet: 'x', range: 'A1' }), 'json')).toThrow(/not valid/);
    expect(() => parseConfigFile(withService({ kind: 'airtable', name: 'Base', table: 'Leads' }), 'json')).toThrow(
      expect.objectContaining({ fieldErrors: expect.objectContaining({ 'forms.0.integrations.0.base': expect.any(String) }) }),
    );
    const schema = JSON.stringify(configFileJsonSchema('https://forms.example.com/v1/config.schema.json'));
    for (const name of ['"spreadsheet"', '"audience"', '"consentField"', '"lists"', '"database"', '"apiKey"']) expect(schema).toContain(name);
  });

  it('resolves a service secret from the environment and plans a changed setting as old → new', () => {
    const parsed = parseConfigFile(withService({ kind: 'mailchimp', name: 'List', audience: 'b2', apiKey: '${MC_KEY}' }), 'json');
    const [form] = resolveSecrets(parsed, { MC_KEY: 'k-us21' });
    expect(form!.integrations![0]).toMatchObject({ apiKey: 'k-us21' });
    const current = formState({
      key: 'signup',
      name: 'Sign-up',
      integrations: [{ id: 'int_9', kind: 'mailchimp', name: 'List', enabled: true, chatId: null, url: { set: false }, token: { set: false }, settings: { audience: 'a1', consentField: 'consent' }, secrets: { apiKey: { set: true, value: 'k-us21' } } }],
    });
    const plan = planConfig([form!], state(current), options);
    expect(plan.forms[0]!.integrations).toEqual([
      expect.objectContaining({ action: 'update', id: 'int_9', changes: { fields: { audience: 'b2', consentField: 'consent' } }, reason: 'audience "a1" → "b2"' }),
    ]);
    expect(formatPlan(planView(plan))).not.toContain('k-us21');
  });
});

