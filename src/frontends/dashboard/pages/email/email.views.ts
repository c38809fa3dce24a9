/**
 * The email notification settings (part of the settings page) and a form's email log.
 * Everything owner- or visitor-written is printed with `<%= %>` (escaped).
 */
/** Why a message was not sent, said once (the log's Result column). */
export const SKIP_REASONS: Record<string, string> = {
  suppressed: 'the address unsubscribed',
  rate_limited: 'one confirmation per address an hour',
  daily_cap: "the form's daily limit of confirmations was reached",
  too_late: 'released from spam more than a day after it arrived',
  recipient_not_verified: 'the address was removed or bounced before it was sent',
};

export const emailViews: Record<string, string> = {
  // Opening the link changes nothing (mail scanners open links): the button confirms.
  confirmLink: `<section class="card narrow">
<h1><%= it.heading %></h1>
<p id="confirm-text"><%= it.text %></p>
<form method="post" action="<%= it.action %>">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <button class="primary"><%= it.button %></button>
</form>
</section>`,

  notifySettings: `<section class="card" id="notifications">
<h2>Email notifications</h2>
<% if (!it.notifications.enabled) { %>
<p class="muted">Email is off on this server: its operator has not set <code>SMTP_URL</code>.</p>
<% } else { %>
<% it.notifications.recipients.filter(function (r) { return r.state === 'bounced'; }).forEach(function (r) { %>
<p class="error" role="alert">Mail to <strong><%= r.address %></strong> bounced: it gets no more notifications until it is verified again.</p>
<% }) %>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/notifications" class="stack">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <% var typed = it.values.recipients, mode = it.values.notifyMode !== undefined ? it.values.notifyMode : it.form.notifyMode; %>
  <label>Send submissions to (up to 5 addresses, comma or line separated)
  <textarea name="recipients" rows="3" aria-describedby="recipients-error"><%= typed !== undefined ? typed : it.notifications.recipients.map(function (r) { return r.address; }).join('\\n') %></textarea></label>
  <% if (it.fieldErrors.recipients) { %><p class="field-error" id="recipients-error"><%= it.fieldErrors.recipients %></p><% } %>
  <label>When <select name="notifyMode" aria-describedby="notifyMode-error">
    <option value="each" <%= mode === 'each' ? 'selected' : '' %>>One email per submission</option>
    <option value="hourly" <%= mode === 'hourly' ? 'selected' : '' %>>Hourly digest</option>
    <option value="daily" <%= mode === 'daily' ? 'selected' : '' %>>Daily digest</option>
  </select></label>
  <% if (it.fieldErrors.notifyMode) { %><p class="field-error" id="notifyMode-error"><%= it.fieldErrors.notifyMode %></p><% } %>
  <p class="muted">A new address first gets a link to confirm it; what arrives meanwhile is kept and sent once it is confirmed. An address already confirmed on another of your forms needs no new link.</p>
  <button class="primary">Save notifications</button>
</form>
<% if (it.notifications.recipients.length > 0) { %>
<table class="recipients"><thead><tr><th>Address</th><th>Status</th><th></th></tr></thead><tbody>
<% it.notifications.recipients.forEach(function (r) { %>
<tr><td><%= r.address %></td><td><span class="badge <%= r.state === 'verified' ? 'ok' : 'off' %>"><%= r.state === 'pending' ? 'waiting for confirmation' : r.state %></span></td>
<td><% if (r.state !== 'verified') { %><form method="post" action="/dashboard/forms/<%= it.form.id %>/notifications/<%= r.id %>/verify" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="small">Send the confirmation link again</button></form><% } %></td></tr>
<% }) %>
</tbody></table>
<% } %>
<div class="row">
<form method="post" action="/dashboard/forms/<%= it.form.id %>/notifications/test" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button>Send test email</button></form>
<a class="button" href="/dashboard/forms/<%= it.form.id %>/email-log">Email log</a>
</div>
<% } %>
</section>`,

  emailLog: `<%~ include('@formNav', it) %>
<section class="card">
<h1>Email log</h1>
<% if (!it.enabled) { %><p class="muted">Email is off on this server: its operator has not set <code>SMTP_URL</code>.</p><% } %>
<% if (it.entries.length === 0) { %><p class="muted">No email yet.</p><% } else { %>
<table class="attempts stacked" id="email-log"><thead><tr><th>Queued</th><th>Kind</th><th>Recipient</th><th>Result</th><th>Attempts (time, result, SMTP reply)</th></tr></thead><tbody>
<% it.entries.forEach(function (e) { %>
<tr><td data-label="Queued"><%~ it.h.timeTag(e.createdAt) %></td><td data-label="Kind"><%= e.kind %><% if (e.submissionId) { %><br><a href="/dashboard/submissions/<%= e.submissionId %>"><code><%= e.submissionId %></code></a><% } %></td>
 <td data-label="Recipient" class="wrap"><%= e.to %></td><td data-label="Result"><span class="badge <%= e.state === 'sent' ? 'ok' : 'off' %>"><%= e.state === 'held' ? 'held' : e.state %></span><% if (e.state === 'skipped') { %> <span class="muted skip-reason"><%= it.skipReasons[e.skipReason] || 'not sent' %></span><% } else if (e.state === 'held') { %> <span class="muted">until the address is confirmed</span><% } %></td>
<td data-label="Attempts"><% if (e.attempts.length === 0) { %><span class="muted"><%= e.state === 'pending' ? 'not tried yet' : e.state === 'sending' ? 'sending now' : 'none' %></span><% } %><% e.attempts.forEach(function (a) { %><div class="attempt"><%~ it.h.timeTag(a.attemptedAt) %> · <strong><%= a.outcome %></strong> · <code><%= a.reply %></code></div><% }) %></td></tr>
<% }) %>
</tbody></table>
<% } %>
</section>`,
};
