import type { InboxMember } from '../../../../features/inbox/inbox.service.js';
import type { SubmissionTriage } from '../../../../features/inbox/inbox.types.js';
import { MAX_NOTES_LENGTH, MAX_TAG_LENGTH, MAX_TAGS_PER_SUBMISSION } from '../../../../features/inbox/inbox.types.js';

/** The inbox panel of a submission's page: state, assignee, tags and private notes. */
export function submissionInboxModel(submission: { triage: SubmissionTriage }, members: InboxMember[], formTags: string[]): Record<string, unknown> {
  const t = submission.triage;
  return {
    ...t,
    members,
    formTags: formTags.filter((tag) => !t.tags.includes(tag)),
    canTag: t.tags.length < MAX_TAGS_PER_SUBMISSION,
    maxTags: MAX_TAGS_PER_SUBMISSION,
    maxTagLength: MAX_TAG_LENGTH,
    maxNotes: MAX_NOTES_LENGTH,
  };
}

/** Included by the submission page (`@submissionInbox`): every control posts to /triage with the CSRF token. */
export const submissionInboxViews: Record<string, string> = {
  submissionInbox: `<section class="inbox-panel" aria-labelledby="inbox-heading">
<h2 id="inbox-heading">Triage</h2>
<% var t = it.inbox; var url = '/dashboard/submissions/' + it.submission.id + '/triage'; %>
<% if (!it.can('submissions.triage')) { %>
<dl class="fields" id="inbox-read-only">
  <dt>State</dt><dd id="triage-state"><%= t.state === 'done' ? 'Done' : 'Open' %></dd>
  <dt>Assignee</dt><dd id="assignee"><%= t.assignee || 'Nobody' %></dd>
  <dt>Tags</dt><dd id="tags"><% if (t.tags.length === 0) { %><span class="muted">none</span><% } %><% t.tags.forEach(function (tag) { %><span class="badge"><%= tag %></span> <% }) %></dd>
  <dt>Notes</dt><dd id="notes"><%= t.notes || '—' %><% if (t.notesAt) { %><p class="muted notes-by" id="notes-by">Written by <%= t.notesBy %>, <%~ it.h.timeTag(t.notesAt) %></p><% } %></dd>
</dl>
<p class="muted">Your role (viewer) reads the inbox; a member, an admin or the owner changes it.</p>
<% } else { %>
<div class="row">
  <span id="triage-state" class="badge <%= t.state === 'done' ? 'ok' : '' %>"><%= t.state === 'done' ? 'Done' : 'Open' %></span>
  <form method="post" action="<%= url %>" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>">
    <% if (t.state === 'done') { %><button name="action" value="reopen">Reopen</button><% } else { %><button name="action" value="done">Mark done</button><% } %>
  </form>
  <form method="post" action="<%= url %>" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button name="action" value="unread">Mark unread</button></form>
</div>
<form method="post" action="<%= url %>" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Assignee <select name="assignee" id="assignee">
    <option value="" <%= t.assigneeId ? '' : 'selected' %>>Nobody</option>
    <% t.members.forEach(function (m) { %><option value="<%= m.id %>" <%= t.assigneeId === m.id ? 'selected' : '' %>><%= m.email %></option><% }) %>
  </select></label>
  <button name="action" value="assign">Assign</button>
</form>
<div class="row tags" id="tags">
  <span>Tags:</span>
  <% if (t.tags.length === 0) { %><span class="muted">none</span><% } %>
  <% t.tags.forEach(function (tag) { %>
  <form method="post" action="<%= url %>" class="inline tag"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="tag" value="<%= tag %>">
    <span class="badge"><%= tag %></span> <button name="action" value="untag" class="small" aria-label="Remove the tag <%= tag %>">×</button></form>
  <% }) %>
</div>
<% if (t.canTag) { %>
<form method="post" action="<%= url %>" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>New tag <input name="tag" maxlength="<%= t.maxTagLength %>" list="form-tags" autocomplete="off"></label>
  <datalist id="form-tags"><% t.formTags.forEach(function (tag) { %><option value="<%= tag %>"><% }) %></datalist>
  <button name="action" value="tag">Add tag</button>
</form>
<% } else { %><p class="muted">At most <%= t.maxTags %> tags: remove one to add another.</p><% } %>
<form method="post" action="<%= url %>">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Private notes (only your team sees them, in this dashboard) <textarea name="notes" rows="4" maxlength="<%= t.maxNotes %>"><%= t.notes %></textarea></label>
  <% if (t.notesAt) { %><p class="muted notes-by" id="notes-by">Last written by <%= t.notesBy %>, <%~ it.h.timeTag(t.notesAt) %></p><% } %>
  <button name="action" value="notes">Save notes</button>
</form>
<% } %>
</section>`,
};
