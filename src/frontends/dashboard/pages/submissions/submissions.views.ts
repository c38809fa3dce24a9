/** Templates of a form's submissions: the list with search and selection, one submission, confirmations. */
export const submissionViews: Record<string, string> = {
  submissions: `<%~ include('@formNav', it) %>
<section class="card">
<div class="row">
  <h1>Submissions</h1>
  <nav class="tabs" aria-label="Inbox or spam">
    <a href="?<%= it.tabQuery %>" class="<%= it.spam ? '' : 'active' %>">Inbox (<%= it.inboxCount %>)</a>
    <a href="?<%= it.tabQuery ? it.tabQuery + '&' : '' %>spam=1" class="<%= it.spam ? 'active' : '' %>">Spam (<%= it.spamCount %>)</a>
  </nav>
  <span class="grow"></span>
  <a class="button" id="export-csv" href="/dashboard/forms/<%= it.form.id %>/export.csv?<%= it.exportQuery %>">Export CSV (<%= it.exportLabel %>)</a>
  <a class="button" id="export-ndjson" href="/dashboard/forms/<%= it.form.id %>/export.ndjson?<%= it.exportQuery %>">Export NDJSON (<%= it.exportLabel %>)</a>
</div>
<figure class="chart-box">
<%~ it.h.dailyChartSvg(it.days) %>
<figcaption class="muted">Last 30 days (days in <%= it.timeZone %>): <strong id="chart-inbox"><%= it.daysInbox %></strong> inbox, <strong id="chart-spam"><%= it.daysSpam %></strong> spam. <span class="legend inbox">■ inbox</span> <span class="legend spam">■ spam</span></figcaption>
</figure>
<p class="muted" id="inbox-counts"><strong id="unread-count"><%= it.unreadCount.toLocaleString('en') %></strong> unread · <strong id="open-count"><%= it.openCount.toLocaleString('en') %></strong> open in the inbox</p>
<% if (it.spamFilterStatus) { %><p class="muted small-print" id="spam-filter-status">Learning spam filter: <%= it.spamFilterStatus %></p><% } %>
<form method="get" action="/dashboard/forms/<%= it.form.id %>/submissions" class="search" role="search">
  <% if (it.spam) { %><input type="hidden" name="spam" value="1"><% } %>
  <label class="grow">Search field values <input type="search" name="q" maxlength="200" value="<%= it.q %>" placeholder="e.g. ada@example.com or refund"></label>
  <label>From <input type="date" name="from" value="<%= it.from %>" aria-describedby="dates-zone from-error"></label>
  <label>To <input type="date" name="to" value="<%= it.to %>" aria-describedby="dates-zone to-error"></label>
  <label>Read <select name="read"><option value="">Any</option><option value="unread" <%= it.read === 'unread' ? 'selected' : '' %>>Unread</option><option value="read" <%= it.read === 'read' ? 'selected' : '' %>>Read</option></select></label>
  <label>State <select name="state"><option value="">Any</option><option value="open" <%= it.state === 'open' ? 'selected' : '' %>>Open</option><option value="done" <%= it.state === 'done' ? 'selected' : '' %>>Done</option></select></label>
  <label>Assignee <select name="assignee"><option value="">Anyone</option><option value="me" <%= it.assignee === 'me' ? 'selected' : '' %>>Me</option><option value="none" <%= it.assignee === 'none' ? 'selected' : '' %>>Nobody</option><% it.members.forEach(function (m) { %><option value="<%= m.id %>" <%= it.assignee === m.id ? 'selected' : '' %>><%= m.email %></option><% }) %></select></label>
  <label>Tag <select name="tag"><option value="">Any</option><% it.tags.forEach(function (tag) { %><option value="<%= tag %>" <%= it.tag === tag ? 'selected' : '' %>><%= tag %></option><% }) %></select></label>
  <button class="primary">Search</button>
  <% if (it.filtered) { %><a class="button" href="?<%= it.spam ? 'spam=1' : '' %>">Clear</a><% } %>
</form>
<p class="muted small-print" id="dates-zone">From and To are whole days in <%= it.timeZone %>, both included.</p>
<% if (it.fieldErrors.from) { %><p class="field-error" id="from-error"><%= it.fieldErrors.from %></p><% } %>
<% if (it.fieldErrors.to) { %><p class="field-error" id="to-error"><%= it.fieldErrors.to %></p><% } %>
<% if (it.submissions.length === 0) { %><% if (Object.keys(it.fieldErrors).length === 0) { %><p class="muted" id="empty"><%= it.filtered ? 'No submissions match.' : 'Nothing here yet.' %></p><% } %><% } else { %>
<% var triager = it.can('submissions.triage'); %>
<% if (triager) { %><form method="post" action="/dashboard/forms/<%= it.form.id %>/submissions/bulk" id="bulk">
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="back" value="<%= it.back %>">
<% } else { %><div id="bulk"><% } %>
<div class="row bulk-bar">
  <span class="muted" id="position"><%= it.position %></span>
  <% if (triager) { %><label hidden class="select-page"><input type="checkbox" id="select-page"> Select all on this page</label><% } %>
  <% if (triager && it.canSelectAll) { %><label class="select-all"><input type="checkbox" name="scope" value="all" id="scope-all"> <%= it.allMatchingLabel %> (not only the ticked)</label><% } %>
  <% if (triager) { %><span class="muted bulk-hint" id="bulk-hint">Tick submissions to act on them.</span><% } %>
</div>
<% if (triager) { %><div class="row bulk-bar bulk-actions" id="bulk-actions" role="group" aria-label="Actions on the selected submissions">
  <button name="action" value="read" class="small">Mark read</button>
  <button name="action" value="unread" class="small">Mark unread</button>
  <button name="action" value="done" class="small">Mark done</button>
  <button name="action" value="reopen" class="small">Reopen</button>
  <button name="action" value="assign-me" class="small">Assign to me</button>
  <label class="assign-to">Assign to <select name="assignee" id="bulk-assignee"><option value="">…</option><% it.members.forEach(function (m) { %><option value="<%= m.id %>"><%= m.email %></option><% }) %></select></label>
  <button name="action" value="assign" class="small">Assign</button>
  <button name="action" value="unassign" class="small">Unassign</button>
  <label>Tag <input name="tag" maxlength="40" list="bulk-tags" autocomplete="off"></label>
  <datalist id="bulk-tags"><% it.tags.forEach(function (tag) { %><option value="<%= tag %>"><% }) %></datalist>
  <button name="action" value="tag" class="small">Add tag</button>
  <button name="action" value="untag" class="small">Remove tag</button>
  <% if (it.spam) { %><button name="action" value="not-spam" class="small">Mark not spam</button><% } else { %><button name="action" value="spam" class="small">Mark spam</button><button name="action" value="not-spam" class="small" title="Confirms they are not spam: the learning filter learns from it">Not spam</button><% } %>
  <button name="action" value="delete" class="danger small">Delete selected</button>
</div><% } %>
<div class="table-wrap">
<table class="stacked inbox-list">
<thead><tr><% if (triager) { %><th><span class="sr">Select</span></th><% } %><th>From</th><th>Received</th><th>Country</th><% if (it.spam) { %><th>Reason</th><% } %><th>State</th><th>Assignee</th><th>Tags</th></tr></thead>
<tbody>
<% it.submissions.forEach(function (s) { %>
<tr class="<%= s.read ? '' : 'unread' %>"><% if (triager) { %><td data-label="Select" class="select"><input type="checkbox" name="ids" value="<%= s.id %>" aria-label="Select submission <%= s.id %>"></td><% } %>
<td data-label="From" class="preview"><div class="sender-line"><a href="/dashboard/submissions/<%= s.id %>"><%= s.who || 'No name given' %></a><% if (!s.read) { %> <span class="badge unread-badge">unread</span><% } %><% if (s.whoDetail) { %> <span class="muted detail"><%= s.whoDetail %></span><% } %></div><div class="snippet"><%= s.preview %></div></td>
<td data-label="Received" class="received"><%~ it.h.timeTag(s.createdAt) %></td>
<td data-label="Country" class="country"><%~ it.h.countryTag(s.country) %></td>
<% if (it.spam) { %><td data-label="Reason" class="reason"><%= s.reason %></td><% } %>
<td data-label="State" class="state"><%= s.done ? 'Done' : 'Open' %></td>
<td data-label="Assignee" class="assignee"><%= s.assignee ? (s.assignedToMe ? s.assignee + ' (you)' : s.assignee) : '—' %></td>
<td data-label="Tags" class="tags"><% s.tags.forEach(function (tag) { %><span class="badge tag"><%= tag %></span> <% }) %></td></tr>
<% }) %>
</tbody></table>
</div>
<% if (triager) { %></form><% } else { %></div><% } %>
<% } %>
<nav class="pager row">
<% if (it.newerHref) { %><a class="button" rel="prev" href="<%= it.newerHref %>">← Newer</a><% } %>
<% if (it.olderHref) { %><a class="button" rel="next" href="<%= it.olderHref %>">Older →</a><% } %>
</nav>
</section>`,

  submission: `<%~ include('@formNav', it) %>
<section class="card">
<h1><%= it.who ? it.who : 'Submission' %> <code class="muted"><%= it.submission.id %></code></h1>
<p class="muted">Received <%~ it.h.timeTag(it.submission.createdAt) %> · <%~ it.h.countryTag(it.submission.country) %> · <span id="spam-state"><%= it.submission.isSpam ? 'Spam: ' + it.spamReason : 'Inbox' %></span></p>
<div class="submission-layout">
<div class="submission-content" id="submission-content">
<table class="fields">
<% it.fields.forEach(function (f) { %><tr><th><%= f.name %></th><td><%= f.value %></td></tr><% }) %>
</table>
<% if (it.files && it.files.length > 0) { %><h2>Files</h2>
<ul class="files">
<% it.files.forEach(function (f) { %><li><% if (f.beingScanned) { %><%= f.name %> <span class="muted">(<%= f.field %> · <%= f.type %> · <%= f.size %> · being scanned)</span><% } else { %><a href="/dashboard/files/<%= f.id %>" download><%= f.name %></a> <span class="muted">(<%= f.field %> · <%= f.type %> · <%= f.size %><%= f.scanState === 'unscanned' ? ' · not scanned yet' : '' %>)</span><% } %></li><% }) %>
</ul><% } %>
<h2>Request</h2>
<table class="fields">
<tr><th>IP</th><td><%= it.submission.ip || 'not stored' %></td></tr>
<tr><th>Country</th><td><%~ it.h.countryTag(it.submission.country) %></td></tr>
<tr><th>User agent</th><td><%= it.submission.userAgent %></td></tr>
<tr><th>Referer</th><td><%= it.submission.referer %></td></tr>
</table>
<h2 id="deliveries">Deliveries</h2>
<% if (it.messages.length === 0) { %><p class="muted">Nothing was sent for this submission: no hook, notification, confirmation or integration applied<%= it.submission.isSpam ? ' (spam is never sent on)' : '' %>.</p><% } else { %>
<div class="table-wrap">
<table class="attempts stacked messages"><thead><tr><th>Message</th><th>To</th><th>State</th><th>Attempts</th><th>Last answer</th><th>Queued</th><th>Last attempt</th><th><span class="sr">Action</span></th></tr></thead><tbody>
<% it.messages.forEach(function (m) { %>
<tr data-message="<%= m.id %>"><td data-label="Message"><%= m.kind %></td><td data-label="To"><code><%= m.target %></code></td><td data-label="State" class="state-<%= m.state %>"><%= m.stateText %><% if (m.nextAttemptAt) { %><br><span class="muted">next attempt <%~ it.h.timeTag(m.nextAttemptAt) %></span><% } %></td>
<td data-label="Attempts"><%= m.attempts %></td><td data-label="Last answer"><%= m.answer %><% if (m.earlierAttempts && m.earlierAttempts.length > 0) { %><details class="earlier"><summary>Earlier attempts (<%= m.earlierAttempts.length %>)</summary><ol><% m.earlierAttempts.forEach(function (a) { %><li><%~ it.h.timeTag(a.at) %>: <%= a.answer %></li><% }) %></ol></details><% } %></td><td data-label="Queued"><%~ it.h.timeTag(m.createdAt) %></td>
<td data-label="Last attempt"><%~ m.lastAttemptAt ? it.h.timeTag(m.lastAttemptAt) : '—' %></td>
<td data-label="Action"><% if (m.canSendAgain && it.can('deliveries.resend')) { %><form method="post" action="/dashboard/submissions/<%= it.submission.id %>/send-again" class="inline">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="channel" value="<%= m.channel %>"><input type="hidden" name="messageId" value="<%= m.id %>">
  <button class="small" aria-label="Send again: <%= m.kind %> to <%= m.target %>">Send again</button></form><% } %></td></tr>
<% }) %></tbody></table>
</div>
<% } %>
</div>
<aside class="submission-triage" id="submission-triage" aria-label="Triage">
<% if (it.can('submissions.triage')) { %><form method="post" action="/dashboard/submissions/<%= it.submission.id %>/mark" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <% if (it.submission.isSpam) { %><button name="spam" value="0">Not spam</button><% } else { %><button name="spam" value="1">Mark as spam</button> <button name="spam" value="0" title="Confirms it is not spam: the learning filter learns from it">Not spam</button><% } %>
</form><% } %>
<%~ include('@submissionInbox', it) %>
<% if (it.can('submissions.triage')) { %><form method="post" action="/dashboard/forms/<%= it.form.id %>/submissions/bulk">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="ids" value="<%= it.submission.id %>">
  <button name="action" value="delete" class="danger">Delete submission</button>
</form><% } %>
</aside>
</div>
</section>`,

  confirmBulk: `<%~ include('@formNav', it) %>
<section class="card narrow">
<h1><%= it.heading %></h1>
<p id="confirm-question"><%= it.question %></p>
<% if (it.sends.length > 0) { %><ul id="confirm-sends"><% it.sends.forEach(function (line) { %><li><%= line %></li><% }) %></ul><% } %>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/submissions/bulk" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="action" value="<%= it.action %>">
  <input type="hidden" name="confirm" value="1">
  <input type="hidden" name="back" value="<%= it.back %>">
  <% if (it.scopeAll) { %><input type="hidden" name="scope" value="all"><% } %>
  <% it.ids.forEach(function (id) { %><input type="hidden" name="ids" value="<%= id %>"><% }) %>
  <button class="<%= it.danger ? 'danger' : 'primary' %>"><%= it.confirmLabel %></button>
  <a class="button" href="<%= it.back %>">Cancel</a>
</form>
</section>`,
};
