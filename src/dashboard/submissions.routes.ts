import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Submission } from '../submissions/submission.types.js';
import { AppError } from '../errors.js';
import { BROWSE_PAGE_SIZE, type BrowsePage } from '../submissions/submission-browse.service.js';
import { pageContext, sendPage, setFlash } from './page.js';
import { CSV_BOM, csvHeader, csvRow, ndjsonRow } from './export.js';

const CHART_DAYS = 30;

interface ListQuery {
  spam?: string;
  q?: string;
  from?: string;
  to?: string;
  cursor?: string;
  dir?: string;
  at?: string;
}
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

function spamChoice(value: unknown): boolean {
  if (value === '1' || value === '0') return value === '1';
  throw new AppError('validation_failed', 'Choose spam or not spam.', { fieldErrors: { spam: 'must be 1 or 0' } });
}

const describeValue = (value: unknown) => (Array.isArray(value) ? value.join(', ') : value === null ? '' : String(value));

function preview(submission: Submission): string {
  return Object.entries(submission.payload)
    .map(([name, value]) => `${name}: ${describeValue(value)}`)
    .join(' · ')
    .slice(0, 200);
}

export async function submissionPages(app: FastifyInstance): Promise<void> {
  const queries = app.services.submissionQueries;

  const secure = app.config.baseUrl.startsWith('https:');
  const browser = app.services.submissionBrowser;

  app.get<{ Params: { id: string }; Querystring: ListQuery }>(
    '/dashboard/forms/:id/submissions',
    { schema: { hide: true, querystring: listQuerySchema } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
      const query = request.query;
      const spam = query.spam === '1';
      const at = Math.max(0, Math.min(1e9, Number.parseInt(query.at ?? '0', 10) || 0));
      const direction = query.dir === 'newer' ? 'newer' : 'older';
      const [summary, days] = await Promise.all([
        browser.summariseForms(accountId, [form.id]),
        browser.dailyCounts(accountId, form.id, CHART_DAYS),
      ]);
      const counts = summary.get(form.id) ?? { inbox: 0, spam: 0 };
      const filters = { q: query.q ?? '', from: query.from ?? '', to: query.to ?? '' };
      let page: BrowsePage = { submissions: [], olderCursor: null, newerCursor: null, words: [] };
      let fieldErrors: Record<string, string> = {};
      let error: string | undefined;
      try {
        page = await browser.browse(accountId, form.id, { ...filters, spam, direction, ...(query.cursor ? { cursor: query.cursor } : {}) });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'validation_failed') throw err;
        fieldErrors = err.fieldErrors ?? {};
        error = fieldErrors.cursor ? `${err.message} ${fieldErrors.cursor}.` : err.message;
      }
      const filtered = page.words.length > 0 || filters.from !== '' || filters.to !== '';
      const keep = new URLSearchParams();
      if (spam) keep.set('spam', '1');
      for (const [k, v] of Object.entries(filters)) if (v) keep.set(k, v);
      const link = (cursor: string, dir: 'older' | 'newer', position: number) => {
        const params = new URLSearchParams(keep);
        params.set('cursor', cursor);
        if (dir === 'newer') params.set('dir', 'newer');
        params.set('at', String(Math.max(0, position)));
        return `?${params.toString()}`;
      };
      const shown = page.submissions.length;
      const total = spam ? counts.spam : counts.inbox;
      const position = shown === 0 ? '' : `Showing ${(at + 1).toLocaleString('en')}–${(at + shown).toLocaleString('en')}${filtered ? ' of the matches' : ` of ${total.toLocaleString('en')}`}`;
      const tabParams = new URLSearchParams();
      for (const [k, v] of Object.entries(filters)) if (v) tabParams.set(k, v);
      const ctx = { ...pageContext(request, reply, `${form.name}: submissions`), ...(error ? { error } : {}) };
      return sendPage(reply, 'submissions', ctx, {
        form,
        spam,
        ...filters,
        filtered,
        fieldErrors,
        tabQuery: tabParams.toString(),
        inboxCount: counts.inbox,
        spamCount: counts.spam,
        days,
        daysInbox: days.reduce((n, d) => n + d.inbox, 0),
        daysSpam: days.reduce((n, d) => n + d.spam, 0),
        position,
        back: `/dashboard/forms/${form.id}/submissions${request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''}`,
        olderHref: page.olderCursor ? link(page.olderCursor, 'older', at + shown) : null,
        newerHref: page.newerCursor ? link(page.newerCursor, 'newer', at - BROWSE_PAGE_SIZE) : null,
        submissions: page.submissions.map((s) => ({ id: s.id, createdAt: s.createdAt, country: s.country, spamReason: s.spamReason, preview: preview(s) })),
      }, error ? 400 : 200);
    },
  );

  app.get<{ Params: { id: string } }>('/dashboard/submissions/:id', { schema: { hide: true } }, async (request, reply) => {
    const submission = await queries.getSubmission(request.owner!.id, request.params.id);
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, submission.formId);
    const fields = Object.entries(submission.payload).map(([name, value]) => ({ name, value: describeValue(value) }));
    return sendPage(reply, 'submission', pageContext(request, reply, 'Submission'), { form, submission, fields });
  });

  app.post<{ Params: { id: string }; Body: { spam?: unknown } }>('/dashboard/submissions/:id/mark', { schema: { hide: true } }, async (request, reply) => {
    const spam = spamChoice(request.body?.spam);
    await app.services.triage.markSubmission(request.params.id, spam, request.owner!.id);
    return reply.redirect(`/dashboard/submissions/${request.params.id}`, 303);
  });

  // The single-submission form of the same action (older links and forms post here).
  app.post<{ Params: { id: string }; Body: { confirm?: string } }>('/dashboard/submissions/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const submission = await queries.getSubmission(request.owner!.id, request.params.id);
    const form = await app.services.forms.getFormOfAccount(request.owner!.id, submission.formId);
    const listUrl = `/dashboard/forms/${form.id}/submissions`;
    if (request.body?.confirm !== '1') {
      return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), {
        form, ids: [submission.id], back: listUrl, action: 'delete', heading: 'Delete this submission?',
        question: `The submission of ${form.name} will be deleted for good, with its pending hook deliveries. This cannot be undone.`,
        confirmLabel: 'Delete submission',
      });
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
        const n = marked.length;
        setFlash(reply, { notice: `Marked ${n} submission${n === 1 ? '' : 's'} ${request.body.action === 'spam' ? 'spam' : 'not spam'}.` }, secure);
        return reply.redirect(back, 303);
      }
      if (request.body.confirm !== '1') {
        const n = ids.length;
        return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), {
          form,
          ids,
          back,
          action: 'delete',
          heading: n === 1 ? 'Delete this submission?' : `Delete ${n} submissions?`,
          question: `${n === 1 ? 'The submission' : `The ${n} selected submissions`} of ${form.name} will be deleted for good, with their pending hook deliveries. This cannot be undone.`,
          confirmLabel: n === 1 ? 'Delete submission' : `Delete ${n} submissions`,
        });
      }
      const deleted = await app.services.lifecycle.deleteSubmissions(accountId, form.id, ids);
      setFlash(reply, { notice: `Deleted ${deleted} submission${deleted === 1 ? '' : 's'}.` }, secure);
      return reply.redirect(back, 303);
    },
  );

  // CSV needs its columns up front: a first pass collects field names (in order of first
  // appearance, newest submission first), the second streams the rows. Both read page by page,
  // and each page goes out as one chunk (a write per row would cost more than the row).
  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/export.csv', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const columns = await browser.exportFieldNames(accountId, form.id);
    async function* rows() {
      yield CSV_BOM + csvHeader(columns);
      for await (const page of browser.exportPages(accountId, form.id)) yield page.map((s) => csvRow(s, columns)).join('');
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.csv"`)
      .send(Readable.from(rows()));
  });

  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/export.ndjson', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    async function* rows() {
      for await (const page of browser.exportPages(accountId, form.id)) yield page.map(ndjsonRow).join('');
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.ndjson"`)
      .send(Readable.from(rows()));
  });
}
