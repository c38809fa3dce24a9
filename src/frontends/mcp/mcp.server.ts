import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AccountService } from '../../features/accounts/account.service.js';
import { scopeAllows, type ApiKeyScope } from '../../features/api-keys/api-key.types.js';
import { runAsActor } from '../../features/audit/audit.context.js';
import { AppError, validationFailed, type ErrorBody } from '../../platform/errors.js';
import type { FormService } from '../../features/forms/form.service.js';
import type { FormConfigService } from '../../features/form-config/form-config.service.js';
import { parseIsoInstant } from '../../platform/lib/time.js';
import { formToApiForm } from '../../features/forms/form.types.js';
import type { SubmissionBrowseService } from '../../features/submissions/submission-browse.service.js';
import type { SubmissionQueryService } from '../../features/submissions/submission-query.service.js';
import type { SubmissionTriageService } from '../../features/inbox/triage.service.js';
import { submissionToApiSubmission } from '../../features/submissions/submission.types.js';
import { VERSION } from '../../platform/version.js';

/** The services the tools call: the same ones the management API and the dashboard call. */
export interface McpServices {
  accounts: AccountService;
  forms: FormService;
  submissionQueries: SubmissionQueryService;
  submissionBrowser: SubmissionBrowseService;
  triage: SubmissionTriageService;
  formConfig: FormConfigService;
}

/** Whom a connection acts for: the API key's account and scope, and where it comes from. */
export interface McpPrincipal {
  accountId: string;
  keyId: string;
  scope: ApiKeyScope;
  /** The client's address over HTTP; none over stdio. */
  address?: string | undefined;
}

/** Errors of code `internal_error` are logged by whoever gives this. */
export type McpErrorLog = (err: unknown) => void;

const MAX_LIMIT = 100;
const MAX_COUNT_DAYS = 366;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const formId = z.string().describe('The form ID (frm_…), as list_forms gives it.');
const submissionId = z.string().describe('The submission ID (sub_…).');
const day = (what: string) => z.string().describe(`${what}, a UTC day as YYYY-MM-DD (inclusive).`);
const instant = (what: string) =>
  z.string().describe(`${what}: an ISO 8601 date-time with a zone (2026-11-22T10:15:30Z) or a date (2026-11-22, its start in UTC), as the management API takes it.`);

/**
 * An MCP server (docs/mcp.md) for one API key: the read tools for every key,
 * mark_spam / mark_not_spam for keys of scope `triage` (and `manage`), create_form and
 * update_form for keys of scope `manage`. Each answer is the management API's JSON
 * shape, as structured content and as text; an error is a tool error carrying the API's
 * error body (`{ error, message, fieldErrors? }`), an ID of another account being `not_found`.
 */
export function buildMcpServer(services: McpServices, principal: McpPrincipal, logError: McpErrorLog): McpServer {
  const server = new McpServer({ name: 'formgate', version: VERSION });
  const { accountId } = principal;
  // What a tool changes is the key's doing in the audit log, over HTTP and stdio alike.
  const actor = { actor: { type: 'api_key', id: principal.keyId, label: principal.keyId } as const, address: principal.address };
  const run = async (work: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    try {
      const result = await runAsActor(() => actor, work);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      const body: ErrorBody = err instanceof AppError ? err.toBody() : { error: 'internal_error', message: 'Something went wrong; try again.' };
      if (!(err instanceof AppError)) logError(err);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: { ...body } };
    }
  };

  server.registerTool(
    'get_account',
    { description: 'Returns the account that owns the API key: its ID, email, display name and plan.', annotations: { readOnlyHint: true } },
    () =>
      run(async () => {
        const { id, email, displayName, planId } = await services.accounts.getAccount(accountId);
        return { user: { id, email, displayName, planId } };
      }),
  );

  server.registerTool(
    'list_forms',
    { description: "Lists the account's forms, newest first, with their IDs and settings.", annotations: { readOnlyHint: true } },
    () => run(async () => ({ forms: (await services.forms.listForms(accountId)).map(formToApiForm) })),
  );

  server.registerTool(
    'list_submissions',
    {
      description: "Lists a form's submissions newest first, a page at a time, optionally only spam or not spam, matching words, or between two days.",
      inputSchema: {
        formId,
        limit: z.number().int().optional().describe(`Submissions per page, 1 to ${MAX_LIMIT} (default 25).`),
        cursor: z.string().optional().describe('The nextCursor of the previous page, to get the next one.'),
        spam: z.union([z.boolean(), z.literal('all')]).optional().describe('true: only spam; false: only not spam; "all" (default): both.'),
        query: z.string().optional().describe('Words every submission listed must contain (in any field value).'),
        since: instant('Only submissions created at or after this instant').optional(),
        until: instant('Only submissions created before this instant (exclusive)').optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        const limit = args.limit ?? 25;
        if (limit < 1 || limit > MAX_LIMIT) throw validationFailed('The limit is not valid.', { limit: `must be an integer from 1 to ${MAX_LIMIT}` });
        const since = checkInstant(args.since, 'since');
        const until = checkInstant(args.until, 'until');
        if (since !== undefined && until !== undefined && until <= since) throw validationFailed('The until value is not after since.', { until: 'must be later than since' });
        const spam = args.spam === undefined || args.spam === 'all' ? undefined : args.spam;
        if ((args.query ?? '').trim() === '') {
          // Without words: exactly the management API's list, its time bounds and (signed) cursors.
          const page = await services.submissionQueries.listSubmissions(accountId, args.formId, {
            limit,
            ...(args.cursor !== undefined ? { cursor: args.cursor } : {}),
            ...(spam !== undefined ? { spam } : {}),
            ...(since !== undefined ? { since } : {}),
            ...(until !== undefined ? { until } : {}),
          });
          return { submissions: page.submissions.map(submissionToApiSubmission), nextCursor: page.nextCursor };
        }
        // With words: the dashboard's search, bounded by the same instants.
        const page = await services.submissionBrowser.browse(accountId, args.formId, {
          limit,
          q: args.query!,
          ...(spam !== undefined ? { spam } : {}),
          ...(since !== undefined ? { since } : {}),
          ...(until !== undefined ? { until } : {}),
          ...(args.cursor !== undefined ? { cursor: args.cursor } : {}),
        });
        return { submissions: page.submissions.map(submissionToApiSubmission), nextCursor: page.olderCursor };
      }),
  );

  server.registerTool(
    'get_submission',
    { description: 'Returns one submission with all its fields.', inputSchema: { submissionId }, annotations: { readOnlyHint: true } },
    (args) => run(async () => ({ submission: submissionToApiSubmission(await services.submissionQueries.getSubmission(accountId, args.submissionId)) })),
  );

  server.registerTool(
    'count_submissions',
    {
      description: "Counts a form's submissions per UTC day, not spam and spam, over a range of days (default the last 30).",
      inputSchema: { formId, since: day('The first day').optional(), until: day('The last day (default today)').optional() },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        checkDays(args.since, args.until);
        const until = args.until ?? new Date().toISOString().slice(0, 10);
        const since = args.since ?? addDays(until, -29);
        const span = Math.round((Date.parse(`${until}T00:00:00Z`) - Date.parse(`${since}T00:00:00Z`)) / 86_400_000) + 1;
        if (span < 1 || span > MAX_COUNT_DAYS) {
          throw validationFailed('The range of days is not valid.', { since: `must be on or before until, at most ${MAX_COUNT_DAYS} days before it` });
        }
        const days = await services.submissionBrowser.dailyCounts(accountId, args.formId, span, 'UTC', new Date(`${until}T12:00:00Z`));
        const total = days.reduce((sum, d) => ({ inbox: sum.inbox + d.inbox, spam: sum.spam + d.spam }), { inbox: 0, spam: 0 });
        return { formId: args.formId, since, until, total, days };
      }),
  );

  if (scopeAllows(principal.scope, 'triage')) {
    for (const spam of [true, false]) {
      server.registerTool(
        spam ? 'mark_spam' : 'mark_not_spam',
        {
          description: spam
            ? 'Marks a submission as spam, as the dashboard does, and teaches the learning filter.'
            : 'Marks a submission as not spam, as the dashboard does: a submission never sent on is then sent to its hooks, notifications and integrations once.',
          inputSchema: { submissionId },
          annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
        },
        (args) =>
          run(async () => {
            await services.triage.markSubmission(args.submissionId, spam, accountId);
            return { submission: submissionToApiSubmission(await services.submissionQueries.getSubmission(accountId, args.submissionId)) };
          }),
      );
    }
  }
  if (scopeAllows(principal.scope, 'manage')) registerManageTools(server, services, accountId, run);
  return server;
}

const formSettings = z.record(z.string(), z.unknown()).describe('Settings by name, as the API\'s PATCH /v1/api/forms/:id takes them (docs/api.md); null clears one.');
const formFields = {
  name: z.string().describe('The form\'s name.'),
  isActive: z.boolean().describe('Whether the form takes submissions.'),
  key: z.string().nullable().describe('A stable name for configuration files (letters, digits, . _ -); null removes it.'),
  settings: formSettings,
  recipients: z.array(z.string()).describe('The whole list of addresses notified of submissions (each confirms by email first).'),
};

/** create_form and update_form: the write API's form writes, for keys of scope manage. */
function registerManageTools(server: McpServer, services: McpServices, accountId: string, run: (work: () => Promise<Record<string, unknown>>) => Promise<CallToolResult>): void {
  server.registerTool(
    'create_form',
    {
      description: 'Creates a form with a name and, optionally, a key, settings and notification recipients, and returns it with every setting.',
      inputSchema: { name: formFields.name, isActive: formFields.isActive.optional(), key: formFields.key.optional(), settings: formSettings.optional(), recipients: formFields.recipients.optional() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    (args) => run(async () => ({ form: (await services.formConfig.createForm(accountId, args)).resource })),
  );
  server.registerTool(
    'update_form',
    {
      description: "Changes a form's name, state, key, settings or recipients (only those given) and returns it with every setting.",
      inputSchema: {
        formId,
        name: formFields.name.optional(),
        isActive: formFields.isActive.optional(),
        key: formFields.key.optional(),
        settings: formSettings.optional(),
        recipients: formFields.recipients.optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    ({ formId: id, ...changes }) => run(async () => ({ form: (await services.formConfig.updateForm(accountId, id, changes)).resource })),
  );
}

/** The management API's since/until: an ISO 8601 date-time with a zone, or a date. */
function checkInstant(value: string | undefined, field: 'since' | 'until'): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseIsoInstant(value);
  if (parsed === undefined) throw validationFailed(`The ${field} value is not valid.`, { [field]: 'must be an ISO 8601 date (2026-11-22) or date-time with a zone (2026-11-22T10:15:30Z)' });
  return parsed;
}

function checkDays(since: string | undefined, until: string | undefined): void {
  const fieldErrors: Record<string, string> = {};
  for (const [name, value] of [['since', since], ['until', until]] as const) {
    if (value !== undefined && (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))) fieldErrors[name] = 'must be a day as YYYY-MM-DD';
  }
  if (Object.keys(fieldErrors).length > 0) throw validationFailed('A day is not valid.', fieldErrors);
}

function addDays(dayText: string, days: number): string {
  return new Date(Date.parse(`${dayText}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
