/**
 * A form's integrations: the list (status, the reason when the platform turned one off, secrets
 * only as "set"), the attempt log of each, and one add form per kind. Everything owner- or
 * platform-written is printed with `<%= %>` (escaped).
 */
export const integrationViews: Record<string, string> = {
  integrations: `<%~ include('@formNav', it) %>
<section class="card" id="integrations">
<h1>Integrations</h1>
<p class="muted">Every non-spam submission also goes to these chats and push topics (at most <%= it.max %>). Each add form below says where its URL or token comes from.</p>
<% if (it.secret) { %>
<div class="secret"><p><strong>The <%= it.secretLabel %> you just set.</strong> It is shown only this once; afterwards only as <em>set</em>.</p>
<pre id="new-secret"><%= it.secret %></pre><button type="button" class="copy" data-copy="new-secret">Copy</button><span class="copy-status" role="status"></span></div>
<% } %>
<% if (it.integrations.length === 0) { %><p class="muted">No integrations yet.</p><% } %>
<% it.integrations.forEach(function (i) { %>
<div class="hook integration" data-integration="<%= i.id %>">
  <div class="row"><strong class="integration-name"><%= i.name %></strong><span class="muted"><%= it.kindLabels[i.kind] %></span>
  <span class="badge <%= i.enabled ? 'ok' : 'off' %> integration-status"><%= i.enabled ? 'enabled' : 'disabled' %></span>
  <% if (it.serviceKindNames.includes(i.kind)) { %><span class="muted integration-settings"><% i.service.forEach(function (s, n) { %><%= n > 0 ? ' · ' : '' %><%= s.label %>: <code><%= s.value %></code><% }) %></span>
  <% } else { %><span class="muted">URL: <%= i.url || 'none' %> · token: <%= i.token || 'none' %><% if (i.chatId) { %> · chat <code><%= i.chatId %></code><% } %></span><% } %><span class="grow"></span>
  <form method="post" action="/dashboard/forms/<%= it.form.id %>/integrations/<%= i.id %>/test" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="small">Send test</button></form>
  <form method="post" action="/dashboard/forms/<%= it.form.id %>/integrations/<%= i.id %>/<%= i.enabled ? 'disable' : 'enable' %>" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="small"><%= i.enabled ? 'Disable' : 'Enable' %></button></form>
  <form method="post" action="/dashboard/forms/<%= it.form.id %>/integrations/<%= i.id %>/delete" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Delete</button></form></div>
  <% if (!i.enabled && i.disabledReason) { %><p class="error disabled-reason" role="alert">Disabled: <%= i.disabledReason %></p><% } %>
  <% if (i.attempts.length === 0) { %><p class="muted">No attempts yet.</p><% } else { %>
  <div class="table-wrap">
  <table class="attempts stacked"><thead><tr><th>Time</th><th>Result</th><th>Status</th><th>Error</th></tr></thead><tbody>
  <% i.attempts.forEach(function (a) { %>
  <tr><td data-label="Time"><%~ it.h.timeTag(a.attemptedAt) %></td><% var skipped = a.outcome === 'skipped' && a.error; %><td data-label="Result"><%= skipped ? 'skipped (' + a.error + ')' : a.outcome %><% if (a.test) { %> (test)<% } %></td><td data-label="Status"><%= a.status === null ? '—' : a.status %></td><td data-label="Error"><%= skipped ? '' : (a.error || '') %></td></tr>
  <% }) %></tbody></table>
  </div>
  <% } %>
</div>
<% }) %>
</section>
<section class="card">
<h2>Add an integration</h2>
<% if (it.integrations.length >= it.max) { %><p class="muted">This form has the most integrations it can have.</p><% } else { %>
<% it.kinds.forEach(function (k) { %>
<details class="add-integration" data-kind="<%= k.kind %>" <%= it.values.kind === k.kind ? 'open' : '' %>>
<summary><%= k.label %></summary>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/integrations" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="kind" value="<%= k.kind %>">
  <label>Name <input name="name" maxlength="100" placeholder="<%= k.label %>" value="<%= it.values.kind === k.kind ? (it.values.name || '') : '' %>"></label>
  <% if (k.url) { %><label><%= k.url %> <input name="url" type="url" maxlength="2048" placeholder="<%= k.urlPlaceholder %>" autocomplete="off" value="<%= it.values.kind === k.kind ? (it.values.url || '') : '' %>"></label>
  <% if (it.values.kind === k.kind && it.fieldErrors.url) { %><p class="field-error"><%= it.fieldErrors.url %></p><% } %><% } %>
  <% if (k.token) { %><label><%= k.token %> <input name="token" maxlength="200" autocomplete="off" placeholder="<%= k.tokenPlaceholder %>" value="<%= it.values.kind === k.kind ? (it.values.token || '') : '' %>"></label>
  <% if (it.values.kind === k.kind && it.fieldErrors.token) { %><p class="field-error"><%= it.fieldErrors.token %></p><% } %><% } %>
  <% if (k.chatId) { %><label>Chat ID <input name="chatId" maxlength="70" placeholder="-1001234567890 or @channelname" value="<%= it.values.kind === k.kind ? (it.values.chatId || '') : '' %>"></label>
  <% if (it.values.kind === k.kind && it.fieldErrors.chatId) { %><p class="field-error"><%= it.fieldErrors.chatId %></p><% } %><% } %>
  <p class="muted"><%= k.help %></p>
  <button class="primary">Add <%= k.label %></button>
</form>
</details>
<% }) %>
<% it.serviceKinds.forEach(function (k) { %>
<details class="add-integration" data-kind="<%= k.kind %>" <%= it.values.kind === k.kind ? 'open' : '' %>>
<summary><%= k.label %></summary>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/integrations" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="kind" value="<%= k.kind %>">
  <label>Name <input name="name" maxlength="100" placeholder="<%= k.label %>" value="<%= it.values.kind === k.kind ? (it.values.name || '') : '' %>"></label>
  <% k.fields.forEach(function (f) { var v = it.values.kind === k.kind ? (it.values[f.name] || '') : ''; %>
  <label><%= f.label %><%= f.required ? '' : ' (optional)' %>
  <% if (f.multiline) { %><textarea name="<%= f.name %>" rows="<%= f.secret ? 6 : 3 %>" autocomplete="off" spellcheck="false" placeholder="<%= f.placeholder %>"><%= v %></textarea>
  <% } else { %><input name="<%= f.name %>" maxlength="1000" autocomplete="off" placeholder="<%= f.placeholder %>" value="<%= v %>"><% } %></label>
  <% if (it.values.kind === k.kind && it.fieldErrors[f.name]) { %><p class="field-error"><%= it.fieldErrors[f.name] %></p><% } %>
  <% }) %>
  <p class="muted"><%= k.help %></p>
  <button class="primary">Add <%= k.label %></button>
</form>
</details>
<% }) %>
<% } %>
</section>`,
};
