/** The account page: plan, name, email, password, sessions, deletion. */
export const accountViews: Record<string, string> = {
  account: `<section class="card narrow">
<h1>Account</h1>
<table class="fields">
<tr><th>Email</th><td id="account-email"><%= it.account.email %></td></tr>
<tr><th>Plan</th><td id="account-plan"><%= it.account.planId %></td></tr>
</table>
<% if (it.can('audit.read')) { %><p><a href="/dashboard/audit">Audit log</a>: who signed in and what changed.</p><% } %>
<% if (it.waitingInvitations > 0) { %><p class="notice" id="waiting-invitations"><a href="/dashboard/invitations"><%= it.waitingInvitations %> invitation<%= it.waitingInvitations === 1 ? '' : 's' %></a> to other accounts wait<%= it.waitingInvitations === 1 ? 's' : '' %> for you.</p><% } %>
<form method="post" action="/dashboard/account" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Display name <input name="displayName" maxlength="200" value="<%= it.values.displayName !== undefined ? it.values.displayName : it.account.displayName %>" aria-describedby="displayName-error"></label>
  <% if (it.fieldErrors.displayName) { %><p class="field-error" id="displayName-error"><%= it.fieldErrors.displayName %></p><% } %>
  <button class="primary">Save</button>
</form>
</section>
<section class="card narrow">
<h2>Change email</h2>
<% if (it.pendingEmail) { %>
<p class="notice" id="pending-email">Waiting for <strong><%= it.pendingEmail.newEmail %></strong> to confirm the link sent to it (until <%~ it.h.timeTag(it.pendingEmail.expiresAt) %>). Until then your email stays <%= it.account.email %>.</p>
<form method="post" action="/dashboard/account/email/cancel" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="small">Cancel this change</button></form>
<% } %>
<p class="muted">The new address gets a link to confirm; the email changes only then, and the current address is told.</p>
<form method="post" action="/dashboard/account/email" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>New email <input type="email" name="email" maxlength="254" autocomplete="email" value="<%= it.values.email || '' %>" aria-describedby="email-error"></label>
  <% if (it.fieldErrors.email) { %><p class="field-error" id="email-error"><%= it.fieldErrors.email %></p><% } %>
  <% if (it.hasPassword) { %><label>Current password <input type="password" name="currentPassword" autocomplete="current-password" aria-describedby="emailPassword-error"></label><% } %>
  <% if (it.fieldErrors.emailPassword) { %><p class="field-error" id="emailPassword-error"><%= it.fieldErrors.emailPassword %></p><% } %>
  <button class="primary">Change email</button>
</form>
<%~ include('@signOnProof', it) %>
</section>
<% if (it.canChangePassword) { %><section class="card narrow">
<h2>Change password</h2>
<form method="post" action="/dashboard/account/password" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Current password <input type="password" name="currentPassword" autocomplete="current-password" aria-describedby="currentPassword-error"></label>
  <% if (it.fieldErrors.currentPassword) { %><p class="field-error" id="currentPassword-error"><%= it.fieldErrors.currentPassword %></p><% } %>
  <label>New password <input type="password" name="newPassword" autocomplete="new-password" aria-describedby="newPassword-error"></label>
  <% if (it.fieldErrors.newPassword) { %><p class="field-error" id="newPassword-error"><%= it.fieldErrors.newPassword %></p><% } %>
  <button class="primary">Change password</button>
</form>
</section><% } %>
<% if (it.sso) { %>
<section class="card narrow" id="single-sign-on">
<h2>Single sign-on</h2>
<% if (it.sso.identities.length > 0) { %>
<p>Linked: you can sign in with <%= it.sso.displayName %> as <% it.sso.identities.forEach(function (identity, i) { %><%= i > 0 ? ', ' : '' %><strong class="linked-identity"><%= identity.email %></strong><% }) %>.</p>
<% } else if (it.sso.canLink) { %>
<p class="muted">Not linked yet. Linking asks for your password here, then for a sign-in at the provider: that sign-in opens this login from then on.</p>
<% } else { %>
<p class="muted">Not linked yet: sign in with <%= it.sso.displayName %> and it links to this login.</p>
<% } %>
<% if (it.sso.canLink) { %>
<form method="post" action="/dashboard/account/sso" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Current password <input type="password" name="currentPassword" autocomplete="current-password" aria-describedby="ssoPassword-error"></label>
  <% if (it.fieldErrors.ssoPassword) { %><p class="field-error" id="ssoPassword-error"><%= it.fieldErrors.ssoPassword %></p><% } %>
  <button class="primary">Link <%= it.sso.displayName %></button>
</form>
<% } %>
</section>
<% } %>
<section class="card">
<h2>Sessions</h2>
<p class="muted">Only you see the device and address of your sessions; both are deleted with the session.</p>
<div class="table-wrap">
<table class="stacked" id="sessions">
<thead><tr><th>Device</th><th>Address</th><th>Started</th><th>Expires</th><th><span class="sr">Actions</span></th></tr></thead>
<tbody>
<% it.sessions.forEach(function (s) { %>
<tr><td data-label="Device" class="session-device"><%= s.device %></td><td data-label="Address" class="session-ip"><%= s.ip || '—' %></td>
<td data-label="Started"><%~ it.h.timeTag(s.createdAt) %></td><td data-label="Expires"><%~ it.h.timeTag(s.expiresAt) %></td>
<td data-label="Actions"><% if (s.current) { %><span class="badge ok">This browser</span><% } else { %>
<form method="post" action="/dashboard/account/sessions/<%= s.id %>/revoke" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Log out</button></form><% } %></td></tr>
<% }) %>
</tbody></table>
</div>
<% if (it.sessions.length > 1) { %>
<form method="post" action="/dashboard/account/sessions/revoke-others" class="stack"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger">Log out every other session</button></form>
<% } %>
</section>
<% if (it.role !== 'viewer') { %>
<section class="card narrow">
<h2>Erase a person's data</h2>
<p class="muted">Deletes every submission of your forms with a field equal to this address (case-insensitive), and anything still queued for them. You see how many match before anything is deleted.</p>
<form method="post" action="/dashboard/account/erase" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Email address <input type="email" name="email" maxlength="320" value="<%= it.values.email || '' %>" aria-describedby="email-error"></label>
  <% if (it.fieldErrors.email) { %><p class="field-error" id="email-error"><%= it.fieldErrors.email %></p><% } %>
  <button class="danger">Find submissions to erase…</button>
</form>
</section>
<% } %>
<% if (it.role === 'owner') { %>
<section class="card narrow">
<h2>Delete account</h2>
<p class="muted">Deletes the account with every form, submission, key and hook. This cannot be undone.</p>
<form method="post" action="/dashboard/account/delete" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Type your email (<%= it.account.email %>) to confirm <input name="confirmEmail" autocomplete="off" value="<%= it.values.confirmEmail || '' %>" aria-describedby="confirmEmail-error"></label>
  <% if (it.fieldErrors.confirmEmail) { %><p class="field-error" id="confirmEmail-error"><%= it.fieldErrors.confirmEmail %></p><% } %>
  <% if (it.hasPassword) { %><label>Current password <input type="password" name="currentPassword" autocomplete="current-password" aria-describedby="deletePassword-error"></label><% } %>
  <% if (it.fieldErrors.deletePassword) { %><p class="field-error" id="deletePassword-error"><%= it.fieldErrors.deletePassword %></p><% } %>
  <button class="danger">Delete my account</button>
</form>
<%~ include('@signOnProof', it) %>
</section>
<% } %>`,
  // A user without a password is never asked for one: a sign-on at the provider of the last five
  // minutes stands in for it, and this says which way applies now.
  signOnProof: `<% if (!it.hasPassword) { %><% if (it.freshSignOn) { %><p class="muted sign-on-proof">Confirmed at single sign-on a moment ago: for a few minutes this needs nothing more.</p><% } else { %>
<p class="muted sign-on-proof">You sign in with single sign-on, so this asks for no password: confirm at the provider first (it counts for 5 minutes).</p>
<form method="post" action="/dashboard/account/reauth" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button>Confirm with single sign-on</button></form><% } %><% } %>`,
};
