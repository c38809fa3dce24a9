/** The audit log page: who did what, newest first, filtered by actor and action, paged. */
export const auditViews: Record<string, string> = {
  audit: `<section class="card">
<h1>Audit log</h1>
<p class="muted">Who changed what in this account: sign-ins, members, keys, forms and their notifications, hooks, integrations, submissions and their triage, and what the instance admin did to it. Kept <%= it.retentionDays %> days.</p>
<form method="get" action="/dashboard/audit" class="row">
  <label>Who <select name="actor"><option value="">Anyone</option>
  <% it.actors.forEach(function (a) { %><option value="<%= a %>"<%= a === it.filters.actor ? ' selected' : '' %>><%= a %></option><% }) %></select></label>
  <label>What <select name="action"><option value="">Any action</option>
  <% it.actions.forEach(function (a) { %><option value="<%= a.value %>"<%= a.value === it.filters.action ? ' selected' : '' %>><%= a.label %></option><% }) %></select></label>
  <button>Filter</button>
  <a class="button" href="<%= it.downloadUrl %>" download>Download (NDJSON)</a>
</form>
<% if (it.events.length === 0) { %><p class="muted">No events<%= it.filters.actor || it.filters.action ? ' match these filters' : ' yet' %>.</p><% } else { %>
<table class="stacked">
<thead><tr><th>When</th><th>Who</th><th>What</th><th>Target</th><th>Details</th></tr></thead>
<tbody>
<% it.events.forEach(function (e) { %>
<tr><td data-label="When"><%~ it.h.timeTag(e.at) %></td>
<td data-label="Who"><%= e.actor.label %><% if (e.address) { %><br><span class="muted"><%= e.address %></span><% } %></td>
<td data-label="What"><%= e.actionLabel %></td>
<td data-label="Target"><% if (e.target) { %><% if (e.target.label) { %><%= e.target.label %><br><% } %><code class="muted"><%= e.target.id %></code><% } %></td>
<td data-label="Details"><%= e.detailsText %></td></tr>
<% }) %>
</tbody></table>
<% if (it.next) { %><p><a class="button" href="<%= it.next %>">Older events</a></p><% } %>
<% } %>
</section>`,
};
