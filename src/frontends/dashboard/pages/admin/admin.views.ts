/** The instance admin's page: accounts, sign-up, and the instance's health. */
export const adminViews: Record<string, string> = {
  admin: `<section class="card">
<h1>Admin</h1>
<h2>Instance health</h2>
<table class="stacked health"><tbody>
<tr><th scope="row">Version</th><td data-label="Version" id="health-version"><%= it.health.version %></td></tr>
<tr><th scope="row">Database</th><td data-label="Database" id="health-database"><%= it.health.database %></td></tr>
<tr><th scope="row">Redis</th><td data-label="Redis" id="health-redis"><%= it.health.redis %></td></tr>
<tr><th scope="row">SMTP</th><td data-label="SMTP" id="health-smtp"><%= it.health.smtp %></td></tr>
<tr><th scope="row">Outbox backlog</th><td data-label="Outbox backlog" id="health-outbox"><%= it.health.outboxBacklog %></td></tr>
<tr><th scope="row">Last retention purge</th><td data-label="Last retention purge" id="health-purge"><% if (it.health.lastPurge) { %><%~ it.h.timeTag(it.health.lastPurge.at) %> (<%= it.health.lastPurge.deleted %> deleted)<% } else { %>not yet<% } %></td></tr>
</tbody></table>
</section>
<section class="card">
<h2>Sign-up</h2>
<p id="signup-state">Sign-up is <strong><%= it.signupMode === 'invite' ? 'by invitation only' : it.signupOpen ? 'open' : 'closed' %></strong><%= it.signupFromDatabase ? '' : ' (from DASHBOARD_SIGNUP)' %>.</p>
<form method="post" action="/dashboard/admin/signup" class="inline">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="open" value="<%= it.signupOpen ? '0' : '1' %>">
  <button><%= it.signupOpen ? 'Close sign-up' : 'Open sign-up' %></button>
</form>
<% if (it.signupMode !== 'invite') { %>
<form method="post" action="/dashboard/admin/signup" class="inline">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input type="hidden" name="mode" value="invite">
  <button>Sign-up by invitation only</button>
</form>
<% } %>
</section>
<section class="card">
<h2>Create an account</h2>
<p class="muted">For someone joining this instance: they own the new account.<% if (it.emailEnabled) { %> Without a password, they get an email with a link to choose one.<% } else { %> Without a password (and without email set up), they sign in by single sign-on.<% } %></p>
<form method="post" action="/dashboard/admin/accounts" class="row" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label class="grow">Email address <input type="email" name="email" maxlength="254" autocomplete="off"></label>
  <% if (it.passwordLogin) { %><label class="grow">Password (optional) <input type="password" name="password" autocomplete="new-password"></label><% } %>
  <button class="primary">Create account</button>
</form>
</section>
<section class="card">
<h2>Accounts</h2>
<p id="plan-rules">A plan gates one thing: REST hooks, which need <% it.planRules.hookPlans.forEach(function (p, i) { %><%= i === 0 ? '' : ' or ' %><strong><%= p %></strong><% }) %>. Everything else works on every plan. New accounts get <strong><%= it.planRules.defaultPlan %></strong> (<code>DEFAULT_PLAN</code>); the instance's first account, created without a plan, gets <strong><%= it.planRules.firstAccountPlan %></strong>.</p>
<div class="table-wrap">
<table class="stacked accounts"><thead><tr><th>Email</th><th>Plan</th><th>Forms</th><th>Submissions</th><th>Created</th><th>Actions</th></tr></thead><tbody>
<% it.accounts.forEach(function (a) { %>
<tr data-account="<%= a.email %>"><td data-label="Email"><%= a.email %><% if (a.ownerIsAdmin) { %> <span class="badge ok">admin</span><% } %><% if (a.disabled) { %> <span class="badge off">disabled</span><% } %></td>
<td data-label="Plan"><form method="post" action="/dashboard/admin/accounts/<%= a.id %>/plan" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>">
<label class="sr" for="plan-<%= a.id %>">Plan of <%= a.email %></label>
<select id="plan-<%= a.id %>" name="plan"><% it.plans.forEach(function (p) { %><option value="<%= p %>" <%= p === a.planId ? 'selected' : '' %>><%= p %></option><% }) %></select>
<button class="small">Set plan</button></form></td>
<td data-label="Forms"><%= a.forms %></td><td data-label="Submissions"><%= a.submissions %></td><td data-label="Created"><%~ it.h.timeTag(a.createdAt) %></td>
<td data-label="Actions"><% if (a.id !== it.account.id) { %>
<form method="post" action="/dashboard/admin/accounts/<%= a.id %>/disable" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="disabled" value="<%= a.disabled ? '0' : '1' %>"><button class="small"><%= a.disabled ? 'Enable' : 'Disable' %></button></form>
<a class="button danger small" href="/dashboard/admin/accounts/<%= a.id %>/delete">Delete…</a>
<% } else { %><span class="muted">you</span><% } %></td></tr>
<% }) %>
</tbody></table>
</div>
</section>`,
};
