import { randomUUID } from 'node:crypto';
import { createFormgateApi, FormgateApiError, type FormgateApi } from '../../../client/src/api/index.js';
import { AppError, errorStatus, validationFailed, type ErrorCode } from '../../platform/errors.js';
import type { FormSettingsInput } from '../forms/form.service.js';
import type { IntegrationKind } from '../integrations/integration.types.js';
import { SECRET_SETTINGS, settingsSchema } from './config-file.schema.js';
import { serviceFields } from './config-state.js';
import type { AccountState, ConfigTarget, ConfigWriter, FormState, IntegrationState, SecretState } from './config.types.js';

type Client = FormgateApi['client'];
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The server's error as this process's own, so the CLI prints its message and fields alike. */
function unwrap<T>({ data, error, response }: Answer<T>): T {
  if (response.ok) return data as T;
  const refused = new FormgateApiError(response, error as ConstructorParameters<typeof FormgateApiError>[1]);
  const code = (refused.code in errorStatus ? refused.code : 'internal_error') as ErrorCode;
  throw new AppError(code, `The server refused: ${refused.message}`, { ...(refused.fieldErrors && { fieldErrors: refused.fieldErrors }) });
}

/** The API shows a secret as "set" or null, never its value. */
const secretState = (shown: unknown): SecretState => (shown === null || shown === undefined ? { set: false } : { set: true });

const SETTING_NAMES = Object.keys(settingsSchema.shape).filter((name) => !(SECRET_SETTINGS as readonly string[]).includes(name) && name !== 'isActive');

/** Each write is its own request: a retry after a lost answer is answered from the first. */
const once = () => ({ 'idempotency-key': randomUUID() });

/**
 * A server's management API, with a `manage` key (docs/config-as-code.md): the account is the
 * key's own; forms are changed only while they are as the plan read them (If-Match with their
 * ETag), and every write carries its own Idempotency-Key. Secrets are seen only as set or not.
 */
export class RemoteConfigTarget implements ConfigTarget {
  readonly readsSecrets = false;
  private readonly client: Client;
  /** The newest ETag of each form: a form's second write follows its first. */
  private readonly etags = new Map<string, string>();

  constructor(baseUrl: string, apiKey: string, fetchImpl?: typeof fetch) {
    this.client = createFormgateApi({ baseUrl, apiKey, ...(fetchImpl && { fetch: fetchImpl }) }).client;
  }

  async read(account: string | undefined): Promise<AccountState> {
    const { user } = unwrap(await this.client.GET('/v1/api/me'));
    if (account !== undefined && account !== user.id && account.toLowerCase() !== user.email.toLowerCase()) {
      throw validationFailed(`The file names the account ${account}, but the API key is of ${user.email}: through --server a file is applied to the key's own account.`, {
        account: `must be ${user.email} or ${user.id}, or left out`,
      });
    }
    const { forms } = unwrap(await this.client.GET('/v1/api/forms'));
    const { hooks } = unwrap(await this.client.GET('/v1/api/hooks'));
    const states: FormState[] = [];
    for (const listed of forms) {
      const answer = await this.client.GET('/v1/api/forms/{id}', { params: { path: { id: listed.id } } });
      const { form } = unwrap(answer);
      const etag = answer.response.headers.get('etag') ?? undefined;
      if (etag) this.etags.set(form.id, etag);
      const { integrations } = unwrap(await this.client.GET('/v1/api/forms/{id}/integrations', { params: { path: { id: form.id } } }));
      const settings = form.settings as Record<string, unknown>;
      states.push({
        id: form.id,
        key: form.key ?? form.id,
        name: form.name,
        settings: { isActive: form.isActive === 1, ...Object.fromEntries(SETTING_NAMES.map((name) => [name, settings[name]])) } as FormState['settings'],
        secrets: Object.fromEntries(SECRET_SETTINGS.map((name) => [name, secretState(settings[name])])) as FormState['secrets'],
        recipients: [...form.recipients].sort(),
        integrations: integrations.map(
          (i): IntegrationState => ({
            id: i.id,
            kind: i.kind as IntegrationKind,
            name: i.name,
            enabled: i.enabled,
            chatId: typeof i.chatId === 'string' ? i.chatId : null,
            url: secretState(i.url),
            token: secretState(i.token),
            ...serviceFields(i.kind, (i.settings ?? {}) as Record<string, unknown>, (name) => secretState((i.secrets as Record<string, unknown> | undefined)?.[name])),
          }),
        ),
        hooks: hooks.filter((h) => h.formId === form.id).map((h) => ({ id: h.id, targetUrl: h.targetUrl })),
        etag,
      });
    }
    return { accountId: user.id, email: user.email, forms: states };
  }

  /** Not one transaction: each write is its own request, and what was written before a refusal stays. */
  async write(_accountId: string, run: (writer: ConfigWriter) => Promise<void>): Promise<void> {
    await run(this.writer());
  }

  async deleteForm(form: { id: string }): Promise<void> {
    unwrap(await this.client.DELETE('/v1/api/forms/{id}', { params: { path: { id: form.id }, header: { ...once(), ...this.ifMatch(form.id) } } }));
  }

  private ifMatch(formId: string): { 'if-match'?: string } {
    const etag = this.etags.get(formId);
    return etag === undefined ? {} : { 'if-match': etag };
  }

  private async patchForm(formId: string, body: { name?: string; isActive?: boolean; settings?: Record<string, unknown>; recipients?: string[] }): Promise<void> {
    const answer = await this.client.PATCH('/v1/api/forms/{id}', { params: { path: { id: formId }, header: { ...once(), ...this.ifMatch(formId) } }, body });
    unwrap(answer);
    const etag = answer.response.headers.get('etag');
    if (etag) this.etags.set(formId, etag);
  }

  private writer(): ConfigWriter {
    const client = this.client;
    const split = ({ name, isActive, ...settings }: FormSettingsInput) => ({
      ...(name !== undefined && { name }),
      ...(isActive !== undefined && { isActive }),
      ...(Object.keys(settings).length > 0 && { settings }),
    });
    return {
      createForm: async (key, { name, ...settings }) => {
        const answer = await client.POST('/v1/api/forms', { params: { header: once() }, body: { ...split(settings), name, key } });
        const { form } = unwrap(answer);
        const etag = answer.response.headers.get('etag');
        if (etag) this.etags.set(form.id, etag);
        return form.id;
      },
      updateForm: (form, settings) => this.patchForm(form.id, split(settings)),
      setRecipients: (formId, addresses) => this.patchForm(formId, { recipients: addresses }),
      addIntegration: async (formId, { kind, name, url, token, chatId, enabled, fields }) => {
        const { integration } = unwrap(
          await client.POST('/v1/api/forms/{id}/integrations', { params: { path: { id: formId }, header: once() }, body: { kind, name, url, token, chatId, ...fields } }),
        );
        if (enabled === false) {
          unwrap(await client.PATCH('/v1/api/forms/{id}/integrations/{integrationId}', { params: { path: { id: formId, integrationId: integration.id }, header: once() }, body: { enabled } }));
        }
      },
      updateIntegration: async (formId, integration, { fields, ...changes }) => {
        unwrap(
          await client.PATCH('/v1/api/forms/{id}/integrations/{integrationId}', {
            params: { path: { id: formId, integrationId: integration.id }, header: { ...once(), ...(integration.etag && { 'if-match': integration.etag }) } },
            body: { ...changes, ...fields },
          }),
        );
      },
      removeIntegration: async (formId, integration) => {
        unwrap(
          await client.DELETE('/v1/api/forms/{id}/integrations/{integrationId}', {
            params: { path: { id: formId, integrationId: integration.id }, header: { ...once(), ...(integration.etag && { 'if-match': integration.etag }) } },
          }),
        );
      },
      addHook: async (formId, targetUrl) => {
        unwrap(await client.POST('/v1/api/hooks', { body: { formId, targetUrl }, headers: once() }));
      },
      removeHook: async (hookId) => {
        unwrap(await client.DELETE('/v1/api/hooks/{id}', { params: { path: { id: hookId } }, headers: once() }));
      },
    };
  }
}
