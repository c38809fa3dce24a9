import type { FastifyInstance } from 'fastify';
import { AppError, rethrowUnlessValidation } from '../../../../platform/errors.js';
import type { Form } from '../../../../features/forms/form.types.js';
import { MAX_INBOX_BATCH, type InboxAction } from '../../../../features/inbox/inbox.service.js';
import { normaliseTag } from '../../../../features/inbox/inbox.types.js';
import { MAX_MARK_BATCH } from '../../../../features/inbox/triage.service.js';
import { pageContext, sendPage, setFlash, viewerTimeZone } from '../../page.js';
import { confirmBulkModel, deletedSubmissionOf, type BulkTargets, type FormSends } from '../submissions/submission-bulk.model.js';
import { countedNotice, readSubmissionListQuery, triageFilterOf, withKnownAssignee } from '../submissions/submissions.model.js';

/** Deleting goes in slices of this many (the lifecycle service's own bound). */
const DELETE_BATCH = 100;

const BULK_ACTIONS = ['delete', 'spam', 'not-spam', 'read', 'unread', 'done', 'reopen', 'assign-me', 'assign', 'unassign', 'tag', 'untag'] as const;
type BulkAction = (typeof BULK_ACTIONS)[number];

interface BulkBody {
  action: BulkAction;
  ids?: string | string[];
  scope?: string;
  tag?: string;
  assignee?: string;
  confirm?: string;
  back?: string;
}
const bulkBodySchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: [...BULK_ACTIONS] },
    ids: { anyOf: [{ type: 'string', maxLength: 100 }, { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 100 } }] },
    scope: { type: 'string', enum: ['', 'page', 'all'] },
    tag: { type: 'string', maxLength: 200 },
    assignee: { type: 'string', maxLength: 100 },
    confirm: { type: 'string', maxLength: 1 },
    back: { type: 'string', maxLength: 1000 },
    _csrf: { type: 'string' },
  },
} as const;

const TRIAGE_ACTIONS = ['read', 'unread', 'done', 'reopen', 'assign', 'tag', 'untag', 'notes'] as const;
interface TriageBody {
  action: (typeof TRIAGE_ACTIONS)[number];
  assignee?: string;
  tag?: string;
  notes?: string;
}
const triageBodySchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: [...TRIAGE_ACTIONS] },
    assignee: { type: 'string', maxLength: 100 },
    tag: { type: 'string', maxLength: 200 },
    notes: { type: 'string', maxLength: 20_000 },
    _csrf: { type: 'string' },
  },
} as const;

function inboxAction(action: BulkAction | TriageBody['action'], memberId: string, tag: string | undefined, assignee?: string): InboxAction {
  switch (action) {
    case 'read':
    case 'unread':
    case 'done':
    case 'reopen':
      return { kind: action };
    case 'assign-me':
      return { kind: 'assign', memberId };
    case 'unassign':
      return { kind: 'assign', memberId: null };
    case 'assign':
      return { kind: 'assign', memberId: assignee ? assignee : null };
    case 'tag':
    case 'untag':
      return { kind: action, tag: tag ?? '' };
    default:
      throw new AppError('validation_failed', 'Unknown action.', { fieldErrors: { action: 'is not an inbox action' } });
  }
}

/** What an inbox action did, as a sentence about `what` ("3 submissions"). */
const INBOX_DONE: Record<string, (what: string) => string> = {
  read: (what) => `Marked ${what} read.`,
  unread: (what) => `Marked ${what} unread.`,
  done: (what) => `Marked ${what} done.`,
  reopen: (what) => `Reopened ${what}.`,
  'assign-me': (what) => `Assigned ${what} to you.`,
  unassign: (what) => `Unassigned ${what}.`,
};

/** Runs `act` over `ids` in slices of `size`, adding up what each slice reports. */
async function inSlices(ids: string[], size: number, act: (slice: string[]) => Promise<number>): Promise<number> {
  let n = 0;
  for (let i = 0; i < ids.length; i += size) n += await act(ids.slice(i, i + size));
  return n;
}

/** The team inbox's actions: on ticked rows or everything the list's filter matches, and on one submission. */
export async function inboxPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');

  /** What marking a submission of the form not spam sends, as the outbox would (docs/dashboard.md, Act on many). */
  async function formSends(accountId: string, form: Form): Promise<FormSends> {
    const [hooks, recipients, integrations] = await Promise.all([
      app.services.hooks.listHooks(accountId),
      app.services.notifications.listRecipients(form.id),
      app.services.integrations.listIntegrations(form.id, accountId),
    ]);
    return {
      hookUrls: hooks.filter((h) => h.formId === form.id).map((h) => h.targetUrl),
      recipients: recipients.filter((r) => r.state === 'verified').map((r) => r.address),
      notifyMode: form.notifyMode,
      confirmationField: form.autoReply.enabled ? form.autoReply.field : null,
      integrations: integrations.filter((i) => i.enabled).map((i) => ({ label: integrationLabel(i.kind), name: i.name })),
      mail: Boolean(app.config.smtpUrl),
    };
  }

  // Ticked rows of the list (or one submission), or with scope=all every submission the list's
  // filter matches (read from `back`, the list's own URL) → a confirmation where something is
  // lost or sent → the action.
  app.post<{ Params: { id: string }; Body: BulkBody }>(
    '/dashboard/forms/:id/submissions/bulk',
    { schema: { hide: true, body: bulkBodySchema } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const form = await app.services.forms.getFormOfAccount(accountId, request.params.id);
      const listUrl = `/dashboard/forms/${form.id}/submissions`;
      const back = request.body.back && request.body.back.startsWith(`${listUrl}?`) && !/[\\\r\n]/.test(request.body.back) ? request.body.back : listUrl;
      const action = request.body.action;
      const done = (notice: string) => {
        setFlash(reply, { notice }, secure);
        return reply.redirect(back, 303);
      };
      let ids: string[];
      let targets: BulkTargets;
      try {
        if (request.body.scope === 'all') {
          const list = readSubmissionListQuery(Object.fromEntries(new URLSearchParams(back.slice(listUrl.length + 1))));
          const memberIds = (await app.services.inbox.members(accountId)).map((m) => m.id);
          const triage = triageFilterOf(withKnownAssignee(list.filters, memberIds), request.user!.id);
          ids = await app.services.submissionBrowser.matchingIds(accountId, form.id, {
            ...list.filters,
            spam: list.spam,
            timeZone: viewerTimeZone(request),
            ...(triage ? { triage } : {}),
          });
          targets = { scope: 'all', count: ids.length };
        } else {
          ids = [...new Set([request.body.ids ?? []].flat().filter((id): id is string => typeof id === 'string' && id !== ''))];
          targets = { scope: 'ids', ids };
        }
      } catch (err) {
        rethrowUnlessValidation(err);
        return done(`Nothing was changed: ${err.message}`);
      }
      if (ids.length === 0) return done(request.body.scope === 'all' ? 'Nothing matches the filter: nothing was changed.' : 'Nothing selected: tick the submissions first.');

      if (action === 'delete') {
        if (request.body.confirm !== '1') {
          const one = targets.scope === 'ids' && ids.length === 1 ? await deletedSubmissionOf(app, request, ids[0]!) : undefined;
          return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), confirmBulkModel({ form, action, targets, back, one }));
        }
        const deleted = await inSlices(ids, DELETE_BATCH, (slice) => app.services.lifecycle.deleteSubmissions(accountId, form.id, slice));
        return done(countedNotice('Deleted', deleted));
      }
      if (action === 'spam' || action === 'not-spam') {
        const spam = action === 'spam';
        if (!spam && request.body.confirm !== '1') {
          // Nothing is lost, but what was held back goes out now: say what, before doing it.
          const releasable = await app.services.triage.countReleasable(ids, accountId);
          if (releasable > 0) {
            const model = confirmBulkModel({ form, action, targets, back, releasable, sends: await formSends(accountId, form) });
            return sendPage(reply, 'confirmBulk', pageContext(request, reply, 'Confirm'), model);
          }
        }
        const marked = await inSlices(ids, MAX_MARK_BATCH, async (slice) => (await app.services.triage.markSubmissions(slice, spam, accountId)).marked.length);
        return done(countedNotice('Marked', marked, spam ? ' spam' : ' not spam'));
      }
      try {
        const change = inboxAction(action, request.user!.id, request.body.tag, request.body.assignee);
        // "Assign to…" with nobody chosen would unassign: say so instead of doing it.
        if (action === 'assign' && !request.body.assignee) return done('Nothing was changed: choose whom to assign them to.');
        const actor = { userId: request.user!.id, email: request.user!.email };
        const n = await inSlices(ids, MAX_INBOX_BATCH, (slice) => app.services.inbox.apply(accountId, slice, change, actor));
        const what = `${n.toLocaleString('en')} submission${n === 1 ? '' : 's'}`;
        if (change.kind === 'assign' && action === 'assign') {
          const to = (await app.services.inbox.members(accountId)).find((m) => m.id === change.memberId)?.email;
          return done(`Assigned ${what}${to ? ` to ${to}` : ''}.`);
        }
        if (change.kind === 'tag') return done(`Tagged ${what} “${normaliseTag(change.tag)}”.`);
        if (change.kind === 'untag') return done(`Removed the tag “${normaliseTag(change.tag)}” from ${what}.`);
        return done(INBOX_DONE[action]?.(what) ?? countedNotice('Changed', n));
      } catch (err) {
        rethrowUnlessValidation(err);
        const detail = err.fieldErrors ? Object.values(err.fieldErrors)[0] : undefined;
        return done(`Nothing was changed: ${err.message}${detail ? ` ${detail}.` : ''}`);
      }
    },
  );

  // One submission's inbox state, from its page.
  app.post<{ Params: { id: string }; Body: TriageBody }>(
    '/dashboard/submissions/:id/triage',
    { schema: { hide: true, body: triageBodySchema } },
    async (request, reply) => {
      const accountId = request.owner!.id;
      const submission = await app.services.submissionQueries.getSubmission(accountId, request.params.id);
      const page = `/dashboard/submissions/${submission.id}`;
      let notice: string;
      try {
        if (request.body.action === 'notes') {
          await app.services.inbox.setNotes(accountId, submission.id, request.body.notes ?? '', request.user!.id);
          notice = 'Notes saved.';
        } else {
          const actor = { userId: request.user!.id, email: request.user!.email };
          await app.services.inbox.apply(accountId, [submission.id], inboxAction(request.body.action, request.user!.id, request.body.tag, request.body.assignee), actor);
          notice = 'Saved.';
        }
      } catch (err) {
        rethrowUnlessValidation(err);
        const detail = err.fieldErrors ? Object.values(err.fieldErrors)[0] : undefined;
        notice = `Not saved: ${err.message}${detail ? ` ${detail}.` : ''}`;
      }
      setFlash(reply, { notice }, secure);
      // Marked unread stays unread: the list, not the page that would mark it read again.
      return reply.redirect(request.body.action === 'unread' ? `/dashboard/forms/${submission.formId}/submissions` : page, 303);
    },
  );
}

const INTEGRATION_LABELS: Record<string, string> = { slack: 'Slack', discord: 'Discord', telegram: 'Telegram', teams: 'Microsoft Teams', ntfy: 'ntfy' };
const integrationLabel = (kind: string) => INTEGRATION_LABELS[kind] ?? kind;
