/** The API keys page: the list, a new key shown once, and the form for another. */
export const keyViews: Record<string, string> = {
  keys: `<section class="card">
<h1>API keys</h1>
<% if (it.secret) { %>
<div class="secret"><p><strong>Your new key.</strong> Copy it now: it is shown only once.</p>
<pre id="new-key"><%= it.secret %></pre><button type="button" class="copy" data-copy="new-key">Copy key</button><span class="copy-status" role="status"></span></div>
<% } %>
<% if (it.keys.length === 0) { %><p class="muted">No keys yet.</p><% } else { %>
<table class="stacked">
<thead><tr><th>Name</th><th>Key</th><th>Scope</th><th>Created</th><th>Last used</th><th></th></tr></thead>
<tbody>
<% it.keys.forEach(function (k) { %>
<tr><td data-label="Name"><%= k.name %></td><td data-label="Key"><code><%= k.prefix %>…</code></td>
<td data-label="Scope"><% if (k.scope === 'manage') { %>Read, triage and manage<% } else if (k.scope === 'triage') { %>Read and triage<% } else { %>Read<% } %></td><td data-label="Created"><%~ it.h.timeTag(k.createdAt) %></td>
<td data-label="Last used"><%~ it.h.timeTag(k.lastUsedAt, 'never') %></td>
<td><% if (k.revokedAt) { %><span class="badge off">Revoked</span><% } else { %>
<a class="button danger small" href="/dashboard/keys/<%= k.id %>/revoke">Revoke…</a><% } %></td></tr>
<% }) %>
</tbody></table>
<% } %>
</section>
<section class="card">
<h2>New key</h2>
<form method="post" action="/dashboard/keys" class="row" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label class="grow">Key name <input name="name" placeholder="e.g. Zapier" maxlength="100" value="<%= (it.values && it.values.name) || '' %>" aria-describedby="name-error"></label>
  <label>Scope <select name="scope" aria-describedby="scope-help scope-error">
    <option value="read"<% if (!it.values || (it.values.scope !== 'triage' && it.values.scope !== 'manage')) { %> selected<% } %>>Read</option>
    <option value="triage"<% if (it.values && it.values.scope === 'triage') { %> selected<% } %>>Read and triage</option>
    <option value="manage"<% if (it.values && it.values.scope === 'manage') { %> selected<% } %>>Read, triage and manage</option>
  </select></label>
  <button class="primary">Create key</button>
</form>
<p class="muted" id="scope-help"><strong>Read</strong>: the management API and the MCP server's read tools. <strong>Read and triage</strong>: also marks submissions spam or not spam through the MCP server. <strong>Read, triage and manage</strong>: also creates, changes and deletes forms, their integrations and hooks through the API and the MCP server.</p>
<% if (it.fieldErrors && it.fieldErrors.name) { %><p class="field-error" id="name-error"><%= it.fieldErrors.name %></p><% } %>
<% if (it.fieldErrors && it.fieldErrors.scope) { %><p class="field-error" id="scope-error"><%= it.fieldErrors.scope %></p><% } %>
</section>`,
};
