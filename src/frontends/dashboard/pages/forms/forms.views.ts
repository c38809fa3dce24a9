/**
 * The forms overview: each form with its counts and last submission; and a form's snippet as
 * every role that reads the form sees it (its endpoint and snippets, no settings).
 */
export const formViews: Record<string, string> = {
  formSnippet: `<%~ include('@formNav', it) %>
<h1 class="page-title">Snippet</h1>
<section class="card" id="snippet-section">
<h2>HTML snippet</h2>
<p class="muted">The form posts to this endpoint. Submit URL: <code class="submit-url" id="submit-url"><%= it.submitUrl %></code></p>
<p class="muted">Read only: an owner or admin changes the form's settings.</p>
<h3>Plain HTML</h3>
<%~ include('@snippetVariants', it) %>
</section>`,
  forms: `<section class="card">
<div class="row"><h1>Forms</h1></div>
<% if (it.forms.length === 0) { %><p class="muted">No forms yet. Create your first one below.</p><% } else { %>
<div class="table-wrap">
<table class="stacked" id="forms-table">
<thead><tr><th>Name</th><th>Submissions</th><th>Unread</th><th>Open</th><th>Spam</th><th>Last submission</th><th>Status</th><th>ID</th></tr></thead>
<tbody>
<% it.forms.forEach(function (f) { %>
<tr data-form="<%= f.id %>"><td data-label="Name"><a href="/dashboard/forms/<%= f.id %>/submissions"><%= f.name %></a></td>
<td data-label="Submissions" class="num inbox-count"><%= f.inbox.toLocaleString('en') %></td>
<td data-label="Unread" class="num unread-count"><% if (f.unread > 0) { %><a href="/dashboard/forms/<%= f.id %>/submissions?read=unread"><%= f.unread.toLocaleString('en') %></a><% } else { %>0<% } %></td>
<td data-label="Open" class="num open-count"><% if (f.open > 0) { %><a href="/dashboard/forms/<%= f.id %>/submissions?state=open"><%= f.open.toLocaleString('en') %></a><% } else { %>0<% } %></td>
<td data-label="Spam" class="num spam-count"><%= f.spam.toLocaleString('en') %></td>
<td data-label="Last submission"><%~ it.h.timeTag(f.lastSubmissionAt, 'none yet') %></td>
<td data-label="Status"><span class="badge <%= f.isActive ? 'ok' : 'off' %>"><%= f.isActive ? 'Active' : 'Inactive' %></span><% if (f.integrationDisabled) { %> <a class="badge off integration-warning" href="/dashboard/forms/<%= f.id %>/integrations" title="A chat or push integration was turned off; see why on its page">integration disabled</a><% } %></td>
<td data-label="ID"><code><%= f.id %></code></td></tr>
<% }) %>
</tbody></table>
</div>
<% } %>
</section>
<% if (it.can('forms.manage')) { %><section class="card">
<h2>New form</h2>
<form method="post" action="/dashboard/forms" class="row" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label class="grow">Form name <input name="name" placeholder="e.g. Contact" maxlength="200" value="<%= it.values.name || '' %>" aria-describedby="name-error"></label>
  <button class="primary">Create form</button>
</form>
<% if (it.fieldErrors.name) { %><p class="field-error" id="name-error"><%= it.fieldErrors.name %></p><% } %>
</section><% } %>`,
};
