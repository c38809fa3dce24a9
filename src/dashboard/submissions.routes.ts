import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import type { Submission } from '../submissions/submission.types.js';
import { pageContext, sendPage } from './page.js';
import { CSV_BOM, csvHeader, csvRow, ndjsonRow } from './export.js';

const PAGE_SIZE = 50;
const EXPORT_PAGE_SIZE = 100;

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

  /** Every submission of a form, oldest page last, read page by page (never all at once). */
  async function* allSubmissions(accountId: string, formId: string): AsyncGenerator<Submission> {
    let cursor: string | undefined;
    do {
      const page = await queries.listSubmissions(accountId, formId, { limit: EXPORT_PAGE_SIZE, ...(cursor ? { cursor } : {}) });
      yield* page.submissions;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  app.get<{ Params: { id: string }; Querystring: { spam?: string; cursor?: string } }>(
    '/dashboard/forms/:id/submissions',
    { schema: { hide: true } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
      const spam = request.query.spam === '1';
      const page = await queries.listSubmissions(accountId, form.id, {
        limit: PAGE_SIZE,
        spam,
        ...(request.query.cursor ? { cursor: request.query.cursor } : {}),
      });
      const [inboxCount, spamCount] = await Promise.all([
        queries.countSubmissions(accountId, form.id, false),
        queries.countSubmissions(accountId, form.id, true),
      ]);
      return sendPage(reply, 'submissions', pageContext(request, reply, `${form.name}: submissions`), {
        form,
        spam,
        inboxCount,
        spamCount,
        nextCursor: page.nextCursor,
        submissions: page.submissions.map((s) => ({ id: s.id, createdAt: s.createdAt, country: s.country, spamReason: s.spamReason, preview: preview(s) })),
      });
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

  // The list's bulk action: the checked rows, one POST (CSRF-checked like every dashboard POST).
  app.post<{ Params: { id: string }; Body: { ids?: unknown; spam?: unknown; from?: unknown } }>(
    '/dashboard/forms/:id/submissions/mark',
    { schema: { hide: true } },
    async (request, reply) => {
      const form = await app.services.forms.getFormOfAccount(request.owner!.id, request.params.id);
      const spam = spamChoice(request.body?.spam);
      const raw = request.body?.ids;
      const ids = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((id): id is string => typeof id === 'string');
      await app.services.triage.markSubmissions(ids, spam, request.owner!.id);
      return reply.redirect(`/dashboard/forms/${form.id}/submissions${request.body?.from === 'spam' ? '?spam=1' : ''}`, 303);
    },
  );

  app.post<{ Params: { id: string } }>('/dashboard/submissions/:id/delete', { schema: { hide: true } }, async (request, reply) => {
    const submission = await queries.getSubmission(request.owner!.id, request.params.id);
    await queries.deleteSubmission(request.owner!.id, submission.id);
    return reply.redirect(`/dashboard/forms/${submission.formId}/submissions`, 303);
  });

  // CSV needs its columns up front: a first pass collects field names (in order of first
  // appearance, newest submission first), the second streams the rows. Both read page by page.
  app.get<{ Params: { id: string } }>('/dashboard/forms/:id/export.csv', { schema: { hide: true } }, async (request, reply) => {
    const accountId = request.owner!.id;
    const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
    const names = new Set<string>();
    for await (const s of allSubmissions(accountId, form.id)) for (const name of Object.keys(s.payload)) names.add(name);
    const columns = [...names];
    async function* rows() {
      yield CSV_BOM + csvHeader(columns);
      for await (const s of allSubmissions(accountId, form.id)) yield csvRow(s, columns);
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
      for await (const s of allSubmissions(accountId, form.id)) yield ndjsonRow(s);
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${form.id}-submissions.ndjson"`)
      .send(Readable.from(rows()));
  });
}
