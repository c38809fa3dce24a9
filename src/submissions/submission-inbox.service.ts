import type { DatabaseHandle, Executor } from '../db/database.js';
import { notFound, validationFailed } from '../errors.js';
import { nowIso } from '../lib/time.js';
import {
  countTagsOf,
  deleteTagRows,
  findReadIds,
  findSubmissionFormsOfAccount,
  findTriageRowsOf,
  insertTagRows,
  listTagRowsOf,
  listTagsOfForm,
  triageRowToTriage,
  upsertTriageRows,
  type TriageChange,
} from './submission-inbox.repository.js';
import { MAX_NOTES_LENGTH, MAX_TAGS_PER_SUBMISSION, normaliseTag, UNTRIAGED, type SubmissionTriage } from './submission-inbox.types.js';

/** A member of an account: someone a submission can be assigned to. */
export interface InboxMember {
  id: string;
  email: string;
}

/** Where the members of an account come from (the members feature, plugged in by services.ts). */
interface MemberDirectory {
  listMembers(accountId: string): Promise<Array<{ userId: string; email: string }>>;
}

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
 * The team inbox of contract section 22: read or unread, open or done, an assignee, tags and
 * private notes, kept beside each submission. Every call is scoped to the owning account; IDs
 * that are not the account's are ignored, as the spam marks do.
 */
export class SubmissionInboxService {
  constructor(
    private readonly handle: DatabaseHandle,
    private readonly directory: MemberDirectory,
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

  /** Who a submission of the account can be assigned to. */
  async members(accountId: string): Promise<InboxMember[]> {
    return (await this.directory.listMembers(accountId)).map((m) => ({ id: m.userId, email: m.email }));
  }

  /** The tags used on the form's submissions (alphabetical; the first 200). */
  async tagsOfForm(formId: string): Promise<string[]> {
    return listTagsOfForm(this.db, formId, MAX_FORM_TAGS_LISTED);
  }

  /**
   * Applies one action to the account's submissions among `ids` (any account's when accountId is
   * absent: the operator's CLI); returns how many of them it applied to.
   */
  async apply(accountId: string | undefined, ids: string[], action: InboxAction): Promise<number> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_INBOX_BATCH) throw validationFailed('Too many submissions selected.', { ids: `at most ${MAX_INBOX_BATCH} at a time` });
    const change = await this.changeFor(accountId, action);
    const tag = action.kind === 'tag' || action.kind === 'untag' ? normaliseTag(action.tag) : undefined;
    const targets = await findSubmissionFormsOfAccount(this.db, unique, accountId);
    if (targets.length === 0) return 0;
    const now = nowIso();
    await this.handle.db.transaction().execute(async (trx) => {
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
    });
    return targets.length;
  }

  /** Opening a submission in the dashboard marks it read (and writes nothing when it already is). */
  async markOpened(accountId: string, submissionId: string): Promise<void> {
    if ((await findReadIds(this.db, [submissionId])).size > 0) return;
    await this.apply(accountId, [submissionId], { kind: 'read' });
  }

  async setNotes(accountId: string, submissionId: string, notes: string): Promise<void> {
    const text = notes.replace(/\r\n?/g, '\n').trim();
    if (text.length > MAX_NOTES_LENGTH) throw validationFailed('The notes are too long.', { notes: `Use at most ${MAX_NOTES_LENGTH.toLocaleString('en')} characters` });
    const [target] = await findSubmissionFormsOfAccount(this.db, [submissionId], accountId);
    if (!target) throw notFound('Submission');
    await this.handle.db.transaction().execute((trx) => upsertTriageRows(trx, [target], { notes: text }, nowIso()));
  }

  /** The row change of a state action; undefined for tag actions. */
  private async changeFor(accountId: string | undefined, action: InboxAction): Promise<TriageChange | undefined> {
    switch (action.kind) {
      case 'read':
        return { read_at: nowIso() };
      case 'unread':
        return { read_at: null };
      case 'done':
        return { state: 'done' };
      case 'reopen':
        return { state: 'open' };
      case 'assign': {
        if (action.memberId === null) return { assignee_id: null };
        const members = accountId === undefined ? [] : await this.members(accountId);
        if (!members.some((m) => m.id === action.memberId)) throw validationFailed('That person is not a member of this account.', { assignee: 'Choose a member of this account' });
        return { assignee_id: action.memberId };
      }
      default:
        return undefined;
    }
  }
}
