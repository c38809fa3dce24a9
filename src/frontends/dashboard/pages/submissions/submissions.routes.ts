import { roleMay } from '../../../../features/members/permissions.js';
import { sendFile } from '../../../../features/files/file.routes.js';
import { formatBytes } from '../../../../platform/lib/file-links.js';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError, rethrowUnlessValidation } from '../../../../platform/errors.js';
import { pageContext, sendPage, setFlash, viewerTimeZone } from '../../page.js';
import { CSV_BOM, csvHeader, csvRow, ndjsonRow } from './export.js';
import { MAX_MATCHING, type ExportFilter } from '../../../../features/submissions/submission-browse.service.js';
import type { SubmissionTriage } from '../../../../features/inbox/inbox.types.js';
import { inboxPages } from '../inbox/inbox.routes.js';
import { confirmBulkModel, deletedSubmissionOf } from './submission-bulk.model.js';
import { submissionInboxModel } from '../inbox/submission-inbox.views.js';
import {
  messageLogModel,
  EMPTY_BROWSE_PAGE,
  rowSummary,
  readSubmissionListQuery,
  spamFilterStatusText,
  spamReasonWords,
  submissionFields,
  submissionListModel,
  triageFilterOf,
  withKnownAssignee,
  type SubmissionListQuery,
} from './submissions.model.js';

const CHART_DAYS = 30;

const listQuerySchema = {
  type: 'object',
  properties: {
    spam: { type: 'string', maxLength: 1 },
    q: { type: 'string', maxLength: 200 },
    read: { type: 'string', maxLength: 10 },
    state: { type: 'string', maxLength: 10 },
    assignee: { type: 'string', maxLength: 100 },
    tag: { type: 'string', maxLength: 100 },
    from: { type: 'string', maxLength: 10 },
    to: { type: 'string', maxLength: 10 },
    cursor: { type: 'string', maxLength: 300 },
    dir: { type: 'string', maxLength: 5 },
    at: { type: 'string', maxLength: 10 },
  },
} as const;

const sendAgainBodySchema = {
  type: 'object',
  required: ['channel', 'messageId'],
  properties: {
    channel: { type: 'string', enum: ['hook', 'email', 'integration'] },
    messageId: { type: 'string', maxLength: 300 },
    _csrf: { type: 'string' },
  },
} as const;

function spamChoice(value: unknown): boolean {
  if (value === '1' || value === '0') return value === '1';
  throw new AppError('validation_failed', 'Choose spam or not spam.', { fieldErrors: { spam: 'must be 1 or 0' } });
}

type ExportQuery = Partial<Record<'q' | 'spam' | 'from' | 'to' | 'read' | 'state' | 'assignee' | 'tag', unknown>>;

/**
 * The list's filters on an export link (the page's Export buttons carry them); without any, the
 * whole form, spam included, as before. Bad dates are refused like on the list; dates are days
 * in the viewer's zone, as on the list.
 */
function exportFilter(query: ExportQuery | undefined, timeZone: string, memberId: string, memberIds: string[]): ExportFilter | undefined {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const q = text(query?.q);
  const spam = text(query?.spam);
  const from = text(query?.from);
  const to = text(query?.to);
  if (q === undefined && spam === undefined && from === undefined && to === undefined) return undefined;
  const listFilters = readSubmissionListQuery({ read: text(query?.read), state: text(query?.state), assignee: text(query?.assignee), tag: text(query?.tag) } as SubmissionListQuery).filters;
  const triage = triageFilterOf(withKnownAssignee(listFilters, memberIds), memberId);
  return { ...(q ? { q } : {}), spam: spam === '1', ...(from ? { from } : {}), ...(to ? { to } : {}), timeZone, ...(triage ? { triage } : {}) };
}

export async function submissionPages(app: FastifyInstance): Promise<void> {
  const queries = app.services.submissionQueries;

  const secure = app.config.baseUrl.startsWith('https:');
  const browser = app.services.submissionBrowser;

  app.get<{ Params: { id: string }; Querystring: SubmissionListQuery }>(
    '/dashboard/forms/:id/submissions',
    { schema: { hide: true, querystring: listQuerySchema } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
      const members = await app.services.inbox.members(accountId);
      const read = readSubmissionListQuery(request.query);
      const list = { ...read, filters: withKnownAssignee(read.filters, members.map((m) => m.id)) };
      const timeZone = viewerTimeZone(request);
      const triageFilter = triageFilterOf(list.filters, request.user!.id);
      const filter = { ...list.filters, timeZone, spam: list.spam, ...(triageFilter ? { triage: triageFilter } : {}) };
      const filtered = Object.values(list.filters).some((v) => v !== '');
      const [summary, days, tags, filterStatus] = await Promise.all([
        browser.summariseForms(accountId, [form.id]),
        browser.dailyCounts(accountId, form.id, CHART_DAYS, timeZone),
        app.services.inbox.tagsOfForm(form.id),
        app.services.spamFilter.status(accountId),
      ]);
      let page = EMPTY_BROWSE_PAGE;
      let matching: number | undefined;
      let triage = new Map<string, SubmissionTriage>();
      let fieldErrors: Record<string, string> = {};
      let error: string | undefined;
      try {
        [page, matching] = await Promise.all([
          browser.browse(accountId, form.id, { ...filter, direction: list.direction, ...(list.cursor ? { cursor: list.cursor } : {}) }),
          filtered ? browser.countMatching(accountId, form.id, filter) : Promise.resolve(undefined),
        ]);
        triage = await app.services.inbox.triageOf(page.submissions.map((s) => s.id));
      } catch (err) {
        rethrowUnlessValidation(err);
        fieldErrors = err.fieldErrors ?? {};
        error = fieldErrors.cursor ? `${err.message} ${fieldErrors.cursor}.` : err.message;
      }
      const counts = summary.get(form.id) ?? { inbox: 0, spam: 0, unread: 0, open: 0 };
      const ctx = { ...pageContext(request, reply, `${form.name}: submissions`), ...(error ? { error } : {}) };
      const model = {
        ...submissionListModel({ form, request: list, counts, matching, maxMatching: MAX_MATCHING, days, page, triage, tags, members, viewerId: request.user!.id, fieldErrors, url: request.url }),
        spamFilterStatus: form.spamFilter === 'learn' ? spamFilterStatusText(filterStatus) : null,
      };
      return sendPage(reply, 'submissions', ctx, model, error ? 400 : 200);
    },
  );

  app.get<{ Params: { id: string } }>('/dashboard/submissions/:id', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    // Read and unread are the triagers' shared state: a viewer's look changes nothing for them.
    if (roleMay(request.role, 'submissions.triage')) await app.services.inbox.markOpened(accountId, request.params.id);
    const submission = await queries.getSubmission(accountId, request.params.id);
    const form = await app.services.forms.getFormOfAccount(accountId, submission.formId);
    const inbox = submissionInboxModel(submission, await app.services.inbox.members(accountId), await app.services.inbox.tagsOfForm(form.id));
    const summary = rowSummary(submission);
    return sendPage(reply, 'submission', pageContext(request, reply, 'Submission'), {
      form,
      submission,
      fields: submissionFields(submission),
      files: (await app.services.files.listFilesOfSubmission(submission.id)).map((f) => ({ ...f, size: formatBytes(f.size) })),
      inbox,
      who: summary.who,
      spamReason: spamReasonWords(submission.spamReason, submission.spamScore),
      messages: messageLogModel(await outboundMessages(accountId, submission.id)),
    });
  });

  // A submission's file, as an attachment like every download (docs/files.md, Downloads).
  app.get<{ Params: { id: string } }>('/dashboard/files/:id', { schema: { hide: true } }, async (request, reply) =>
    sendFile(reply, await app.services.files.getFileOfAccount(request.owner!.id, request.params.id)),
  );

  /** Everything the submission caused, from every channel, oldest first. */
  const outboundMessages = async (accountId: string, submissionId: string) =>
    (
      await Promise.all([
        app.services.hooks.listDeliveriesOfSubmission(accountId, submissionId),
        app.services.notifications.listMessagesOfSubmission(accountId, submissionId),
        app.services.integrations.listMessagesOfSubmission(accountId, submissionId),
      ])
    )
      .flat()
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));

  // "Send again": one new attempt through the outbox, by the channel that owns the message.
  app.post<{ Params: { id: string }; Body: { channel: string; messageId: string } }>(
    '/dashboard/submissions/:id/send-again',
    { schema: { hide: true, body: sendAgainBodySchema } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const submission = await queries.getSubmission(accountId, request.params.id);
      const { channel, messageId } = request.body;
      const sent =
        channel === 'hook'
          ? await app.services.hooks.sendDeliveryAgain(accountId, messageId)
          : channel === 'email'
            ? await app.services.notifications.sendMessageAgain(accountId, messageId)
            : await app.services.integrations.sendMessageAgain(accountId, messageId);
      setFlash(reply, { notice: sent ? 'Queued to be sent again: its new attempt shows below.' : 'That message is already queued or being sent.' }, secure);
      return reply.redirect(`/dashboard/submissions/${submission.id}#deliveries`, 303);
    },
  );

  app.post<{ Params: { id: string }; Body: { spam?: unknown } }>('/dashboard/submissions/:id/mark', { schema: { hide: true } }, async (request, reply) => {
    const spam = spamChoice(request.body?.spam);
    await app.services.triage.markSubmission(request.params.id, spam, request.owner!.id);
    setFlash(reply, { notice: spam ? 'Marked spam.' : 'Marked not spam.' }, secure);
    return reply.redirect(`/dashboard/submissions/${request.params.id}`, 303);
  });

  // The single-submission form of the same action (older links and forms post here).
  app.post<{ Params: { id: string }; Body: { confirm?: string } }>('/dashboard/submissions/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const submission = await queries.getSubmission(request.owner!.id, request.params.id);
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, submission.formId);
    const listUrl = `/dashboard/forms/${form.id}/submissions`;
    if (request.body?.confirm !== '1') {
      return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), confirmBulkModel({ form, action: 'delete', targets: { scope: 'ids', ids: [submission.id] }, back: listUrl, one: await deletedSubmissionOf(app, request, submission.id) }));
    }
    await app.services.lifecycle.deleteSubmissions(request.owner!.id, form.id, [submission.id]);
    setFlash(reply, { notice: 'Deleted 1 submission.' }, secure);
    return reply.redirect(listUrl, 303);
  });

  // CSV needs its columns up front: a first pass collects field names (in order of first
  // appearance, newest submission first), the second streams the rows. Both read page by page,
  // and each page goes out as one chunk (a write per row would cost more than the row).
  app.get<{ Params: { id: string }; Querystring: ExportQuery }>('/dashboard/forms/:id/export.csv', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const filter = exportFilter(request.query, viewerTimeZone(request), request.user!.id, (await app.services.inbox.members(accountId)).map((m) => m.id));
    await browser.recordExport(accountId, form.id, 'csv', filter !== undefined);
    const columns = await browser.exportFieldNames(accountId, form.id, undefined, filter);
    async function* rows() {
      yield CSV_BOM + csvHeader(columns);
      for await (const page of browser.exportPages(accountId, form.id, undefined, filter)) {
        const triage = await app.services.inbox.triageOf(page.map((s) => s.id));
        yield page.map((s) => csvRow(s, columns, triage.get(s.id))).join('');
      }
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.csv"`)
      .send(Readable.from(rows()));
  });

  app.get<{ Params: { id: string }; Querystring: ExportQuery }>('/dashboard/forms/:id/export.ndjson', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const filter = exportFilter(request.query, viewerTimeZone(request), request.user!.id, (await app.services.inbox.members(accountId)).map((m) => m.id));
    await browser.recordExport(accountId, form.id, 'ndjson', filter !== undefined);
    async function* rows() {
      for await (const page of browser.exportPages(accountId, form.id, undefined, filter)) yield page.map(ndjsonRow).join('');
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.ndjson"`)
      .send(Readable.from(rows()));
  });

  await inboxPages(app);
}
