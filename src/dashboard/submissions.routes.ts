import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError, rethrowUnlessValidation } from '../errors.js';
import { pageContext, sendPage, setFlash, viewerTimeZone } from './page.js';
import { CSV_BOM, csvHeader, csvRow, ndjsonRow } from './export.js';
import type { ExportFilter } from '../submissions/submission-browse.service.js';
import {
  confirmDeleteModel,
  countedNotice,
  messageLogModel,
  EMPTY_BROWSE_PAGE,
  readSubmissionListQuery,
  submissionFields,
  submissionListModel,
  type SubmissionListQuery,
} from './views/submissions.model.js';

const CHART_DAYS = 30;

const listQuerySchema = {
  type: 'object',
  properties: {
    spam: { type: 'string', maxLength: 1 },
    q: { type: 'string', maxLength: 200 },
    from: { type: 'string', maxLength: 10 },
    to: { type: 'string', maxLength: 10 },
    cursor: { type: 'string', maxLength: 300 },
    dir: { type: 'string', maxLength: 5 },
    at: { type: 'string', maxLength: 10 },
  },
} as const;

interface BulkBody {
  action: string;
  ids?: string | string[];
  confirm?: string;
  back?: string;
}
const bulkBodySchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: ['delete', 'spam', 'not-spam'] },
    ids: { anyOf: [{ type: 'string', maxLength: 100 }, { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 100 } }] },
    confirm: { type: 'string', maxLength: 1 },
    back: { type: 'string', maxLength: 1000 },
    _csrf: { type: 'string' },
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

type ExportQuery = Partial<Record<'q' | 'spam' | 'from' | 'to', unknown>>;

/**
 * The list's filters on an export link (the page's Export buttons carry them); without any, the
 * whole form, spam included, as before. Bad dates are refused like on the list; dates are days
 * in the viewer's zone, as on the list.
 */
function exportFilter(query: ExportQuery | undefined, timeZone: string): ExportFilter | undefined {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const q = text(query?.q);
  const spam = text(query?.spam);
  const from = text(query?.from);
  const to = text(query?.to);
  if (q === undefined && spam === undefined && from === undefined && to === undefined) return undefined;
  return { ...(q ? { q } : {}), spam: spam === '1', ...(from ? { from } : {}), ...(to ? { to } : {}), timeZone };
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
      const list = readSubmissionListQuery(request.query);
      const timeZone = viewerTimeZone(request);
      const [summary, days] = await Promise.all([
        browser.summariseForms(accountId, [form.id]),
        browser.dailyCounts(accountId, form.id, CHART_DAYS, timeZone),
      ]);
      let page = EMPTY_BROWSE_PAGE;
      let fieldErrors: Record<string, string> = {};
      let error: string | undefined;
      try {
        page = await browser.browse(accountId, form.id, { ...list.filters, timeZone, spam: list.spam, direction: list.direction, ...(list.cursor ? { cursor: list.cursor } : {}) });
      } catch (err) {
        rethrowUnlessValidation(err);
        fieldErrors = err.fieldErrors ?? {};
        error = fieldErrors.cursor ? `${err.message} ${fieldErrors.cursor}.` : err.message;
      }
      const counts = summary.get(form.id) ?? { inbox: 0, spam: 0 };
      const ctx = { ...pageContext(request, reply, `${form.name}: submissions`), ...(error ? { error } : {}) };
      const model = submissionListModel({ form, request: list, counts, days, page, fieldErrors, url: request.url });
      return sendPage(reply, 'submissions', ctx, model, error ? 400 : 200);
    },
  );

  app.get<{ Params: { id: string } }>('/dashboard/submissions/:id', { schema: { hide: true } }, async (request, reply) => {
    const submission = await queries.getSubmission(request.owner!.id, request.params.id);
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, submission.formId);
    const messages = await outboundMessages(request.owner!.id, submission.id);
    return sendPage(reply, 'submission', pageContext(request, reply, 'Submission'), { form, submission, fields: submissionFields(submission), messages: messageLogModel(messages) });
  });

  /** Everything the submission caused, from every channel, oldest first (contract section 21). */
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
      return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), confirmDeleteModel(form, [submission.id], listUrl));
    }
    await app.services.lifecycle.deleteSubmissions(request.owner!.id, form.id, [submission.id]);
    setFlash(reply, { notice: 'Deleted 1 submission.' }, secure);
    return reply.redirect(listUrl, 303);
  });

  // Selected rows of the list (or one submission) → a confirmation page → the action. The action
  // names what to do, so more bulk actions join the same selection form.
  app.post<{ Params: { id: string }; Body: BulkBody }>(
    '/dashboard/forms/:id/submissions/bulk',
    { schema: { hide: true, body: bulkBodySchema } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
      const listUrl = `/dashboard/forms/${form.id}/submissions`;
      const back = request.body.back && request.body.back.startsWith(`${listUrl}?`) && !/[\\\r\n]/.test(request.body.back) ? request.body.back : listUrl;
      const ids = [request.body.ids ?? []].flat().filter((id): id is string => typeof id === 'string' && id !== '');
      if (ids.length === 0) {
        setFlash(reply, { notice: 'Nothing selected: tick the submissions first.' }, secure);
        return reply.redirect(back, 303);
      }
      if (request.body.action !== 'delete') {
        // Mark spam / not spam: nothing is lost, so no confirmation; not spam releases to the hooks once.
        const { marked } = await app.services.triage.markSubmissions(ids, request.body.action === 'spam', accountId);
        setFlash(reply, { notice: countedNotice('Marked', marked.length, request.body.action === 'spam' ? ' spam' : ' not spam') }, secure);
        return reply.redirect(back, 303);
      }
      if (request.body.confirm !== '1') {
        return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), confirmDeleteModel(form, ids, back));
      }
      const deleted = await app.services.lifecycle.deleteSubmissions(accountId, form.id, ids);
      setFlash(reply, { notice: countedNotice('Deleted', deleted) }, secure);
      return reply.redirect(back, 303);
    },
  );

  // CSV needs its columns up front: a first pass collects field names (in order of first
  // appearance, newest submission first), the second streams the rows. Both read page by page,
  // and each page goes out as one chunk (a write per row would cost more than the row).
  app.get<{ Params: { id: string }; Querystring: ExportQuery }>('/dashboard/forms/:id/export.csv', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const filter = exportFilter(request.query, viewerTimeZone(request));
    const columns = await browser.exportFieldNames(accountId, form.id, undefined, filter);
    async function* rows() {
      yield CSV_BOM + csvHeader(columns);
      for await (const page of browser.exportPages(accountId, form.id, undefined, filter)) yield page.map((s) => csvRow(s, columns)).join('');
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.csv"`)
      .send(Readable.from(rows()));
  });

  app.get<{ Params: { id: string }; Querystring: ExportQuery }>('/dashboard/forms/:id/export.ndjson', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const filter = exportFilter(request.query, viewerTimeZone(request));
    async function* rows() {
      for await (const page of browser.exportPages(accountId, form.id, undefined, filter)) yield page.map(ndjsonRow).join('');
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.ndjson"`)
      .send(Readable.from(rows()));
  });
}
