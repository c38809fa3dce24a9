import type { AuditService } from '../audit/audit.service.js';
import type { AuditAction } from '../audit/audit.types.js';
import type { DatabaseHandle, Executor, Trx } from '../../platform/db/database.js';
import { notFound, validationFailed } from '../../platform/errors.js';
import { nowIso } from '../../platform/lib/time.js';
import type { NotificationService } from '../notifications/notification.service.js';
import {
  clearAssignmentsOfUser,
  countTagsOf,
  findAssigneesOf,
  countTriagedInboxRows,
  deleteTagRows,
  findReadIds,
  findSubmissionFormsOfAccount,
  findTriageRowsOf,
  insertTagRows,
  listTagRowsOf,
  listTagsOfForm,
  triageRowToTriage,
  upsertTriageRows,
  type SubmissionOfForm,
  type TriageChange,
} from './inbox.repository.js';
import { MAX_NOTES_LENGTH, MAX_TAGS_PER_SUBMISSION, normaliseTag, UNTRIAGED, type SubmissionTriage } from './inbox.types.js';

/** A member of an account: someone a submission can be assigned to. */
export interface InboxMember {
  id: string;
  email: string;
}

/** Where the members of an account come from (the members feature, plugged in by services.ts). */
interface MemberDirectory {
  /** The members whose role may triage: only they are assigned submissions. */
  listMembersAllowedTo(accountId: string, action: 'submissions.triage'): Promise<Array<{ userId: string; email: string }>>;
}

/** Who acts on the inbox from the dashboard: an assignment by someone else is emailed to the assignee. */
export interface InboxActor {
  userId: string;
  email: string;
}

/** How an assignee hears of it (the notifications feature: the email outbox). */
type AssignmentMail = Pick<NotificationService, 'queueAssignmentEmail' | 'wakeOutbox'>;

export type InboxAction =
  | { kind: 'read' }
  | { kind: 'unread' }
  | { kind: 'done' }
  | { kind: 'reopen' }
  | { kind: 'assign'; memberId: string | null }
  | { kind: 'tag'; tag: string }
  | { kind: 'untag'; tag: string };

/** At most this many submissions in one call (the dashboard sends "all matching" in batches of it). */
export const MAX_INBOX_BATCH = 200;
const MAX_FORM_TAGS_LISTED = 200;

/**
 * The audit event of an inbox action. Read and unread are not recorded: opening a submission
 * reads it, and the log would fill with every look.
 */
function auditEventOf(action: InboxAction, tag: string | undefined, assignee: string | null | undefined): { action: AuditAction; details: Record<string, unknown> } | undefined {
  switch (action.kind) {
    case 'done':
    case 'reopen':
      return { action: 'submissions.state_changed', details: { to: action.kind === 'done' ? 'done' : 'open' } };
    case 'assign':
      return { action: 'submissions.assigned', details: { assignee: assignee ?? null } };
    case 'tag':
      return { action: 'submissions.tagged', details: { tag } };
    case 'untag':
      return { action: 'submissions.untagged', details: { tag } };
    default:
      return undefined;
  }
}

/** The event's target and where the submissions are: one submission is the target; several are counted. */
function targetOf(targets: SubmissionOfForm[]) {
  const forms = new Set(targets.map((t) => t.formId));
  const where = forms.size === 1 ? { formId: targets[0]!.formId, form: targets[0]!.formName } : {};
  return { target: targets.length === 1 ? { type: 'submission', id: targets[0]!.id } : undefined, details: { ...where, count: targets.length } };
}

/**
 * The team inbox: read or unread, open or done, an assignee, tags and private notes, kept beside
 * each submission. Every call is scoped to the owning account; IDs that are not the account's are
 * ignored, as the spam marks do. Every change but reading is in the audit log.
 */
export class SubmissionInboxService {
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly directory: MemberDirectory,
    private readonly audit?: AuditService,
    private readonly mail?: AssignmentMail,
  ) {}

  private get db(): Executor {
    return this.handle.db;
  }

  /** The triage state of each of these submissions (the untouched state for those without one). */
  async triageOf(ids: string[]): Promise<Map<string, SubmissionTriage>> {
    const unique = [...new Set(ids)];
    const [rows, tags] = await Promise.all([findTriageRowsOf(this.db, unique), listTagRowsOf(this.db, unique)]);
    const rowById = new Map(rows.map((r) => [r.submission_id, r]));
    const tagsById = new Map<string, string[]>();
    for (const t of tags) tagsById.set(t.submission_id, [...(tagsById.get(t.submission_id) ?? []), t.tag]);
    return new Map(unique.map((id) => [id, rowById.has(id) || tagsById.has(id) ? triageRowToTriage(rowById.get(id), tagsById.get(id) ?? []) : UNTRIAGED]));
  }

  async triageOfOne(id: string): Promise<SubmissionTriage> {
    return (await this.triageOf([id])).get(id) ?? UNTRIAGED;
  }

  /** Who a submission of the account can be assigned to: its members who may triage (never a viewer). */
  async members(accountId: string): Promise<InboxMember[]> {
    return (await this.directory.listMembersAllowedTo(accountId, 'submissions.triage')).map((m) => ({ id: m.userId, email: m.email }));
  }

  /**
   * A member who left the account, was removed or may no longer triage keeps nothing assigned:
   * their assignments are cleared in the transaction of that change, in one audit event.
   */
  async releaseAssignments(trx: Trx, change: { accountId: string; userId: string; email: string; reason: string }): Promise<number> {
    const cleared = await clearAssignmentsOfUser(trx, change.accountId, change.userId, nowIso());
    if (cleared > 0) {
      await this.audit?.record(trx, change.accountId, 'submissions.assigned', undefined, { assignee: null, from: change.email, because: change.reason, count: cleared });
    }
    return cleared;
  }

  /** Per form, how many of its non-spam submissions are read and how many done (the forms list's counts). */
  async countTriaged(formIds: string[]): Promise<Array<{ formId: string; read: number; done: number }>> {
    return countTriagedInboxRows(this.db, formIds);
  }

  /** The tags used on the form's submissions (alphabetical; the first 200). */
  async tagsOfForm(formId: string): Promise<string[]> {
    return listTagsOfForm(this.db, formId, MAX_FORM_TAGS_LISTED);
  }

  /**
   * Applies one action to the account's submissions among `ids` (any account's when accountId is
   * absent: the operator's CLI); returns how many of them it applied to.
   */
  async apply(accountId: string | undefined, ids: string[], action: InboxAction, actor?: InboxActor): Promise<number> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_INBOX_BATCH) throw validationFailed('Too many submissions selected.', { ids: `at most ${MAX_INBOX_BATCH} at a time` });
    const { change, assignee } = await this.changeFor(accountId, action);
    const tag = action.kind === 'tag' || action.kind === 'untag' ? normaliseTag(action.tag) : undefined;
    const targets = await findSubmissionFormsOfAccount(this.db, unique, accountId);
    if (targets.length === 0) return 0;
    const now = nowIso();
    const event = auditEventOf(action, tag, assignee);
    const emailed = await this.handle.db.transaction().execute(async (trx) => {
      const newlyAssigned = await this.newlyAssigned(trx, targets, action, actor);
      await this.applyInTransaction(trx, targets, action, change, tag, now);
      if (event && this.audit) {
        // Without an account (the CLI) the submissions may be several accounts': each log gets its own.
        for (const owner of new Set(targets.map((t) => t.accountId))) {
          const { target, details } = targetOf(targets.filter((t) => t.accountId === owner));
          await this.audit.record(trx, owner, event.action, target, { ...event.details, ...details });
        }
      }
      if (newlyAssigned.length === 0 || !assignee || !this.mail || !actor) return 0;
      return this.mail.queueAssignmentEmail(trx, assignee, { by: actor.email, submissions: newlyAssigned.map((t) => ({ id: t.id, formId: t.formId, formName: t.formName })) }, now);
    });
    if (emailed > 0) this.mail?.wakeOutbox();
    return targets.length;
  }

  /**
   * The targets an assignment gives to someone else than the one acting (nobody is told of
   * what they did themselves) and that were not theirs already (a repeat tells nothing new).
   */
  private async newlyAssigned(trx: Trx, targets: SubmissionOfForm[], action: InboxAction, actor: InboxActor | undefined): Promise<SubmissionOfForm[]> {
    if (action.kind !== 'assign' || action.memberId === null || !actor || action.memberId === actor.userId) return [];
    const before = await findAssigneesOf(trx, targets.map((t) => t.id));
    return targets.filter((t) => before.get(t.id) !== action.memberId);
  }

  /** Writes a state change, or adds or removes a tag (at most MAX_TAGS_PER_SUBMISSION each). */
  private async applyInTransaction(trx: Trx, targets: SubmissionOfForm[], action: InboxAction, change: TriageChange | undefined, tag: string | undefined, now: string): Promise<void> {
    if (change) return upsertTriageRows(trx, targets, change, now);
    if (action.kind === 'untag') return void (await deleteTagRows(trx, targets.map((t) => t.id), tag!));
    const targetIds = targets.map((t) => t.id);
    const has = new Set((await listTagRowsOf(trx, targetIds)).filter((r) => r.tag === tag).map((r) => r.submission_id));
    const counts = await countTagsOf(trx, targetIds);
    const full = targets.filter((t) => !has.has(t.id) && (counts.get(t.id) ?? 0) >= MAX_TAGS_PER_SUBMISSION);
    if (full.length > 0) {
      throw validationFailed(`A submission has at most ${MAX_TAGS_PER_SUBMISSION} tags.`, {
        tag: `${full.length === 1 ? '1 submission already has' : `${full.length} submissions already have`} ${MAX_TAGS_PER_SUBMISSION} tags: remove one first`,
      });
    }
    await insertTagRows(trx, targets.filter((t) => !has.has(t.id)).map((t) => ({ submission_id: t.id, form_id: t.formId, tag: tag! })));
  }

  /** Opening a submission in the dashboard marks it read (and writes nothing when it already is). */
  async markOpened(accountId: string, submissionId: string): Promise<void> {
    if ((await findReadIds(this.db, [submissionId])).size > 0) return;
    await this.apply(accountId, [submissionId], { kind: 'read' });
  }

  /** `authorId`: the user writing them (shown beside the notes with the time). */
  async setNotes(accountId: string, submissionId: string, notes: string, authorId?: string): Promise<void> {
    const text = notes.replace(/\r\n?/g, '\n').trim();
    if (text.length > MAX_NOTES_LENGTH) throw validationFailed('The notes are too long.', { notes: `Use at most ${MAX_NOTES_LENGTH.toLocaleString('en')} characters` });
    const [target] = await findSubmissionFormsOfAccount(this.db, [submissionId], accountId);
    if (!target) throw notFound('Submission');
    await this.handle.db.transaction().execute(async (trx) => {
      const [before] = await findTriageRowsOf(trx, [target.id]);
      if ((before?.notes ?? '') === text) return;
      const now = nowIso();
      await upsertTriageRows(trx, [target], text === '' ? { notes: text, notes_by: null, notes_at: null } : { notes: text, notes_by: authorId ?? null, notes_at: now }, now);
      // Notes are private to the dashboard: the log says they changed, never what they say.
      const details = { formId: target.formId, form: target.formName, ...(text === '' ? { cleared: true } : {}) };
      await this.audit?.record(trx, target.accountId, 'submission.notes_changed', { type: 'submission', id: target.id }, details);
    });
  }

  /** The row change of a state action (none for tag actions), and an assignment's member by email. */
  private async changeFor(accountId: string | undefined, action: InboxAction): Promise<{ change?: TriageChange; assignee?: string | null }> {
    switch (action.kind) {
      case 'read':
        return { change: { read_at: nowIso() } };
      case 'unread':
        return { change: { read_at: null } };
      case 'done':
        return { change: { state: 'done' } };
      case 'reopen':
        return { change: { state: 'open' } };
      case 'assign': {
        if (action.memberId === null) return { change: { assignee_id: null }, assignee: null };
        const members = accountId === undefined ? [] : await this.members(accountId);
        const member = members.find((m) => m.id === action.memberId);
        if (!member) throw validationFailed('That person cannot be assigned here.', { assignee: 'Choose a member of this account who may triage (not a viewer)' });
        return { change: { assignee_id: member.id }, assignee: member.email };
      }
      default:
        return {};
    }
  }
}
