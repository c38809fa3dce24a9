/** REST hooks on the dashboard: create (secret shown once), delete, test, attempts. */
export const hookViews: Record<string, string> = {
  hooks: `<section class="card">
<h1>REST hooks</h1>
<% if (it.secret) { %>
<div class="secret"><p><strong>Your hook's signing secret.</strong> Copy it now: it is shown only once. Deliveries carry a <code>webhook-signature</code> made with it.</p>
<pre id="new-secret"><%= it.secret %></pre><button type="button" class="copy" data-copy="new-secret">Copy secret</button><span class="copy-status" role="status"></span></div>
<% } %>
<% if (it.hooks.length === 0) { %><p class="muted">No subscriptions yet.</p><% } %>
<% it.hooks.forEach(function (h) { %>
<div class="hook" data-hook="<%= h.id %>">
  <div class="row"><code class="target"><%= h.targetUrl %></code><span class="muted">form <strong><%= h.formName %></strong> · since <%~ it.h.timeTag(h.createdAt) %></span><span class="grow"></span>
  <form method="post" action="/dashboard/hooks/<%= h.id %>/test" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="small">Send test</button></form>
  <a class="button danger small" href="/dashboard/hooks/<%= h.id %>/delete">Delete…</a></div>
  <% if (h.attempts.length === 0) { %><p class="muted">No deliveries yet.</p><% } else { %>
  <div class="table-wrap">
  <table class="attempts stacked"><thead><tr><th>Time</th><th>Submission</th><th>Result</th><th>Attempts</th><th>Status</th><th>Duration</th><th>Error</th></tr></thead><tbody>
  <% h.attempts.forEach(function (a) { %>
  <tr><td data-label="Time"><%~ it.h.timeTag(a.attemptedAt || a.createdAt) %></td><td data-label="Submission"><% if (a.submissionId) { %><a href="/dashboard/submissions/<%= a.submissionId %>#deliveries"><code><%= a.submissionId %></code></a><% } else { %>Send test<% } %></td><td data-label="Result"><%= a.state %></td>
  <td data-label="Attempts"><%= a.attempts %></td><td data-label="Status"><%= a.responseStatus === null ? '—' : a.responseStatus %></td><td data-label="Duration"><%= a.durationMs === null ? '—' : a.durationMs + ' ms' %></td><td data-label="Error"><%= a.readableError %></td></tr>
  <% }) %></tbody></table>
  </div>
  <% } %>
  <form method="post" action="/dashboard/hooks/<%= h.id %>/redeliver" class="row redeliver">
    <input type="hidden" name="_csrf" value="<%= it.csrf %>">
    <label>After an outage, send again the failed deliveries of the
      <select name="hours">
        <option value="1">last hour</option><option value="6">last 6 hours</option><option value="24" selected>last 24 hours</option><option value="72">last 3 days</option><option value="168">last 7 days</option><option value="720">last 30 days</option>
      </select></label>
    <button class="small">Send failed again</button>
  </form>
</div>
<% }) %>
</section>
<section class="card">
<h2>New hook</h2>
<% if (!it.planAllowsHooks) { %><p class="muted" id="plan-note">Hooks need the Pro plan or higher; this account is on <strong><%= it.planId %></strong>. <% if (it.isAdmin) { %>As this instance's admin you can change plans on the <a href="/dashboard/admin">Admin</a> page.<% } else { %>Ask this instance's admin to change your plan.<% } %></p><% } else if (it.forms.length === 0) { %><p class="muted">Create a form first.</p><% } else { %>
<form method="post" action="/dashboard/hooks" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Form
    <select name="formId" aria-describedby="formId-error">
    <% it.forms.forEach(function (f) { %><option value="<%= f.id %>" <%= it.values.formId === f.id ? 'selected' : '' %>><%= f.name %></option><% }) %>
    </select></label>
  <% if (it.fieldErrors.formId) { %><p class="field-error" id="formId-error"><%= it.fieldErrors.formId %></p><% } %>
  <label>Target URL (https) <input name="targetUrl" type="url" maxlength="2048" placeholder="https://hooks.example.com/formgate" value="<%= it.values.targetUrl || '' %>" aria-describedby="targetUrl-error"></label>
  <% if (it.fieldErrors.targetUrl) { %><p class="field-error" id="targetUrl-error"><%= it.fieldErrors.targetUrl %></p><% } %>
  <button class="primary">Create hook</button>
</form>
<% } %>
</section>`,
};
