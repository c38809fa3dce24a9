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
<form method="get" action="/dashboard/forms/<%= it.form.id %>/submissions" class="search" role="search">
  <% if (it.spam) { %><input type="hidden" name="spam" value="1"><% } %>
  <label class="grow">Search field values <input type="search" name="q" maxlength="200" value="<%= it.q %>" placeholder="e.g. ada@example.com or refund"></label>
  <label>From <input type="date" name="from" value="<%= it.from %>" aria-describedby="dates-zone from-error"></label>
  <label>To <input type="date" name="to" value="<%= it.to %>" aria-describedby="dates-zone to-error"></label>
  <button class="primary">Search</button>
  <% if (it.filtered) { %><a class="button" href="?<%= it.spam ? 'spam=1' : '' %>">Clear</a><% } %>
</form>
<p class="muted small-print" id="dates-zone">From and To are whole days in <%= it.timeZone %>, both included.</p>
<% if (it.fieldErrors.from) { %><p class="field-error" id="from-error"><%= it.fieldErrors.from %></p><% } %>
<% if (it.fieldErrors.to) { %><p class="field-error" id="to-error"><%= it.fieldErrors.to %></p><% } %>
<% if (it.submissions.length === 0) { %><p class="muted" id="empty"><%= it.filtered ? 'No submissions match.' : 'Nothing here yet.' %></p><% } else { %>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/submissions/bulk" id="bulk">
<input type="hidden" name="_csrf" value="<%= it.csrf %>">
<input type="hidden" name="back" value="<%= it.back %>">
<div class="row bulk-bar">
  <span class="muted" id="position"><%= it.position %></span>
  <span class="grow"></span>
  <% if (it.spam) { %><button name="action" value="not-spam" class="small">Mark not spam</button><% } else { %><button name="action" value="spam" class="small">Mark spam</button><% } %>
  <button name="action" value="delete" class="danger small">Delete selected</button>
</div>
<div class="table-wrap">
<table class="stacked">
<thead><tr><th><span class="sr">Select</span></th><th>Received</th><th>Country</th><% if (it.spam) { %><th>Reason</th><% } %><th>Fields</th></tr></thead>
<tbody>
<% it.submissions.forEach(function (s) { %>
<tr><td data-label="Select"><input type="checkbox" name="ids" value="<%= s.id %>" aria-label="Select submission <%= s.id %>"></td>
<td data-label="Received"><a href="/dashboard/submissions/<%= s.id %>"><%~ it.h.timeTag(s.createdAt) %></a></td><td data-label="Country"><%~ it.h.countryTag(s.country) %></td>
<% if (it.spam) { %><td data-label="Reason" class="reason"><%= s.spamReason || '' %><% if (s.spamScore !== null) { %> <span class="muted score">(score <%= (Math.floor(s.spamScore * 1e4) / 1e4).toFixed(4) %>)</span><% } %></td><% } %>
<td data-label="Fields" class="preview"><%= s.preview %></td></tr>
<% }) %>
</tbody></table>
</div>
</form>
<% } %>
<nav class="pager row">
<% if (it.newerHref) { %><a class="button" rel="prev" href="<%= it.newerHref %>">← Newer</a><% } %>
<% if (it.olderHref) { %><a class="button" rel="next" href="<%= it.olderHref %>">Older →</a><% } %>
</nav>
</section>`,

  submission: `<%~ include('@formNav', it) %>
<section class="card">
<h1>Submission <code><%= it.submission.id %></code></h1>
<p class="muted">Received <%~ it.h.timeTag(it.submission.createdAt) %> · <%~ it.h.countryTag(it.submission.country) %> · <span id="spam-state"><%= it.submission.isSpam ? 'Spam (' + (it.submission.spamReason || 'no reason recorded') + (it.submission.spamScore !== null ? ', score ' + (Math.floor(it.submission.spamScore * 1e4) / 1e4).toFixed(4) : '') + ')' : 'Inbox' %></span></p>
<form method="post" action="/dashboard/submissions/<%= it.submission.id %>/mark" class="inline">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <% if (it.submission.isSpam) { %><button name="spam" value="0">Not spam</button><% } else { %><button name="spam" value="1">Mark as spam</button><% } %>
</form>
<table class="fields">
<% it.fields.forEach(function (f) { %><tr><th><%= f.name %></th><td><%= f.value %></td></tr><% }) %>
</table>
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
<tr data-message="<%= m.id %>"><td data-label="Message"><%= m.kind %></td><td data-label="To"><code><%= m.target %></code></td><td data-label="State" class="state-<%= m.state %>"><%= m.stateText %></td>
<td data-label="Attempts"><%= m.attempts %></td><td data-label="Last answer"><%= m.answer %></td><td data-label="Queued"><%~ it.h.timeTag(m.createdAt) %></td>
<td data-label="Last attempt"><%~ m.lastAttemptAt ? it.h.timeTag(m.lastAttemptAt) : '—' %></td>
<td data-label="Action"><% if (m.canSendAgain) { %><form method="post" action="/dashboard/submissions/<%= it.submission.id %>/send-again" class="inline">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="channel" value="<%= m.channel %>"><input type="hidden" name="messageId" value="<%= m.id %>">
  <button class="small" aria-label="Send again: <%= m.kind %> to <%= m.target %>">Send again</button></form><% } %></td></tr>
<% }) %></tbody></table>
</div>
<% } %>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/submissions/bulk">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="ids" value="<%= it.submission.id %>">
  <button name="action" value="delete" class="danger">Delete submission</button>
</form>
</section>`,

  confirmBulk: `<%~ include('@formNav', it) %>
<section class="card narrow">
<h1><%= it.heading %></h1>
<p><%= it.question %></p>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/submissions/bulk" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="action" value="<%= it.action %>">
  <input type="hidden" name="confirm" value="1">
  <input type="hidden" name="back" value="<%= it.back %>">
  <% it.ids.forEach(function (id) { %><input type="hidden" name="ids" value="<%= id %>"><% }) %>
  <button class="danger"><%= it.confirmLabel %></button>
  <a class="button" href="<%= it.back %>">Cancel</a>
</form>
</section>`,
};
