import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Form } from '../../../../features/forms/form.types.js';
import { formatBytes } from '../../../../platform/lib/file-links.js';
import { formatTimeInWords } from '../../../../platform/lib/time-zone.js';
import { viewerTimeZone } from '../../page.js';

/** What a bulk action is applied to: ticked rows, or every submission the list's filter matches. */
export type BulkTargets = { scope: 'ids'; ids: string[] } | { scope: 'all'; count: number };

/** What the form sends for a submission as if it were new: the channels a "not spam" releases to. */
export interface FormSends {
  hookUrls: string[];
  /** Verified notification recipients. */
  recipients: string[];
  notifyMode: Form['notifyMode'];
  /** The visitor's confirmation email: the field holding their address, when turned on. */
  confirmationField: string | null;
  integrations: Array<{ label: string; name: string }>;
  /** False when the server has no SMTP: no email of any kind leaves it. */
  mail: boolean;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** Each thing a released submission sends, in words; empty when it sends nothing. */
export function describeSends(sends: FormSends): string[] {
  const lines: string[] = [];
  if (sends.hookUrls.length > 0) {
    const hosts = [...new Set(sends.hookUrls.map((u) => URL.canParse(u) ? new URL(u).host : u))];
    lines.push(`a hook delivery to ${sends.hookUrls.length === 1 ? 'the hook at' : `each of ${sends.hookUrls.length} hooks, at`} ${hosts.join(', ')}`);
  }
  if (sends.mail && sends.recipients.length > 0) {
    lines.push(
      sends.notifyMode === 'each'
        ? `a notification email to ${sends.recipients.join(', ')}`
        : `a line in the ${sends.notifyMode} digest email to ${sends.recipients.join(', ')}`,
    );
  }
  if (sends.mail && sends.confirmationField) lines.push(`a confirmation email to the visitor, where the "${sends.confirmationField}" field holds an address`);
  for (const i of sends.integrations) lines.push(`a ${i.label} message (${i.name})`);
  return lines;
}

/** One submission about to be deleted, as the question names it: when it came, and its files. */
export interface DeletedSubmission {
  id: string;
  /** When it was received, in the viewer's words. */
  received: string;
  files: Array<{ name: string; size: string }>;
}

/** The one submission a delete names (the account's only), with its files. */
export async function deletedSubmissionOf(app: FastifyInstance, request: FastifyRequest, submissionId: string): Promise<DeletedSubmission> {
  const submission = await app.services.submissionQueries.getSubmission(request.owner!.id, submissionId);
  const files = await app.services.files.listFilesOfSubmission(submission.id);
  return {
    id: submission.id,
    received: formatTimeInWords(viewerTimeZone(request), submission.createdAt),
    files: files.map((f) => ({ name: f.name, size: formatBytes(f.size) })),
  };
}

/** The confirmation page before a bulk delete, or a "not spam" that sends submissions on. */
export function confirmBulkModel(input: {
  form: Form;
  action: 'delete' | 'not-spam';
  targets: BulkTargets;
  back: string;
  /** delete of one submission: which one, so the question can name it and its files. */
  one?: DeletedSubmission | undefined;
  /** not-spam: how many of the targets were never sent on (those will be now), and what each sends. */
  releasable?: number;
  sends?: FormSends;
}): Record<string, unknown> {
  const { form, targets, back } = input;
  const n = targets.scope === 'ids' ? targets.ids.length : targets.count;
  const these = targets.scope === 'all' ? `All ${plural(n, 'submission')} matching the filter` : n === 1 ? 'The submission' : `The ${n} selected submissions`;
  const common = { form, back, action: input.action, ids: targets.scope === 'ids' ? targets.ids : [], scopeAll: targets.scope === 'all' };
  if (input.action === 'delete') {
    const one = n === 1 ? input.one : undefined;
    const subject = one ? `The submission ${one.id} to ${form.name}, received ${one.received},` : `${these} of ${form.name}`;
    const files = one
      ? one.files.length === 0
        ? ''
        : ` ${one.files.length === 1 ? 'Its file is deleted with it:' : `Its ${one.files.length} files are deleted with it:`}`
      : ` Their uploaded files go with them.`;
    return {
      ...common,
      heading: n === 1 ? 'Delete this submission?' : `Delete ${plural(n, 'submission')}?`,
      question: `${subject} will be deleted for good, with ${n === 1 ? 'its' : 'their'} pending deliveries. This cannot be undone.${n === 1 && !one ? ' Its uploaded files go with it.' : files}`,
      sends: one ? one.files.map((f) => `${f.name} (${f.size})`) : [],
      confirmLabel: n === 1 ? 'Delete submission' : `Delete ${plural(n, 'submission')}`,
      danger: true,
    };
  }
  const releasable = input.releasable ?? 0;
  const sends = input.sends ? describeSends(input.sends) : [];
  return {
    ...common,
    heading: `Mark ${plural(n, 'submission')} not spam?`,
    question:
      sends.length === 0
        ? `${these} will move to the inbox. ${plural(releasable, 'of them was', 'of them were')} never sent on, but ${form.name} has nothing to send them to (no hooks, email recipients or integrations).`
        : `${these} will move to the inbox, and ${plural(releasable, 'of them', 'of them')} that ${releasable === 1 ? 'was' : 'were'} never sent on will be sent now, as new submissions are. For each of ${releasable === 1 ? 'it' : 'them'}:`,
    sends,
    confirmLabel: sends.length === 0 ? `Mark ${plural(n, 'submission')} not spam` : `Mark not spam and send ${releasable === 1 ? 'it' : `these ${plural(releasable, 'submission')}`}`,
    danger: false,
  };
}
