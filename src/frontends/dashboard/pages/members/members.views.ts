/** The Members page (roles, invitations, leaving, handing over) and the invitation page. */
export const memberViews: Record<string, string> = {
  members: `<section class="card">
<h1>Members of <span id="team-name"><%= it.account.teamName %></span></h1>
<% if (it.secret) { %>
<div class="secret"><p><strong>The invitation link.</strong> Copy it now: it is shown only once<% if (it.emailed) { %> (it was also emailed)<% } %>. It works once, for 7 days.</p>
<pre id="invite-link"><%= it.secret %></pre><button type="button" class="copy" data-copy="invite-link">Copy link</button><span class="copy-status" role="status"></span></div>
<% } %>
<table class="stacked">
<thead><tr><th>Email</th><th>Name</th><th>Role</th><th>Since</th><th>Actions</th></tr></thead>
<tbody>
<% it.members.forEach(function (m) { %>
<tr><td data-label="Email"><%= m.email %><% if (m.userId === it.userId) { %> (you)<% } %></td><td data-label="Name"><%= m.displayName %></td>
<td data-label="Role"><%= m.role %></td><td data-label="Since"><%~ it.h.timeTag(m.createdAt) %></td>
<td data-label="Actions">
<% if (it.canManage && m.role !== 'owner' && m.userId !== it.userId) { %>
<form method="post" action="/dashboard/members/<%= m.userId %>/role" class="inline">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label for="role-<%= m.userId %>" class="sr">Role of <%= m.email %></label>
  <select id="role-<%= m.userId %>" name="role"><% it.grantable.forEach(function (r) { %><option value="<%= r %>"<% if (r === m.role) { %> selected<% } %>><%= r %></option><% }) %></select>
  <button class="small">Change role</button>
</form>
<form method="post" action="/dashboard/members/<%= m.userId %>/remove" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Remove <span class="sr"><%= m.email %></span></button></form>
<% } %>
<% if (m.userId === it.userId && m.role !== 'owner') { %>
<form method="post" action="/dashboard/members/leave" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Leave this account</button></form>
<% } %>
</td></tr>
<% }) %>
</tbody></table>
</section>
<% if (it.can('team.rename')) { %>
<section class="card" id="team">
<h2>Team name</h2>
<form method="post" action="/dashboard/members/team-name" class="row" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label class="grow">Name <input name="teamName" maxlength="100" value="<%= it.values.teamName !== undefined ? it.values.teamName : it.account.teamName %>" aria-describedby="teamName-error"></label>
  <button class="primary">Save name</button>
</form>
<% if (it.fieldErrors.teamName) { %><p class="field-error" id="teamName-error"><%= it.fieldErrors.teamName %></p><% } %>
<p class="muted">Invitations, the account switcher and this page show it. Empty gives the team your email as its name.</p>
</section>
<% } %>
<% if (it.canManage) { %>
<section class="card">
<h2>Invite someone</h2>
<form method="post" action="/dashboard/members/invitations" class="row" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label class="grow">Email address <input type="email" name="email" maxlength="254" value="<%= it.values.email || '' %>" aria-describedby="invite-email-error"></label>
  <label>Role <select name="role"><% it.grantable.forEach(function (r) { %><option value="<%= r %>"<% if (r === (it.values.role || 'member')) { %> selected<% } %>><%= r %></option><% }) %></select></label>
  <button class="primary">Invite</button>
</form>
<% if (it.fieldErrors.email) { %><p class="field-error" id="invite-email-error"><%= it.fieldErrors.email %></p><% } %>
<p class="muted"><strong>admin</strong>: everything but deleting the account and its ownership. <strong>member</strong>: reads and triages submissions. <strong>viewer</strong>: reads and exports submissions.</p>
<h3>Open invitations</h3>
<% if (it.invitations.length === 0) { %><p class="muted">None.</p><% } else { %>
<table class="stacked">
<thead><tr><th>Email</th><th>Role</th><th>Expires</th><th>Actions</th></tr></thead>
<tbody>
<% it.invitations.forEach(function (i) { %>
<tr><td data-label="Email"><%= i.email %></td><td data-label="Role"><%= i.role %></td><td data-label="Expires"><%~ it.h.timeTag(i.expiresAt) %></td>
<td data-label="Actions"><form method="post" action="/dashboard/members/invitations/<%= i.id %>/revoke" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Revoke <span class="sr">the invitation of <%= i.email %></span></button></form></td></tr>
<% }) %>
</tbody></table>
<% } %>
</section>
<% } %>
<% if (it.role === 'owner' && it.members.length > 1) { %>
<section class="card narrow">
<h2>Hand over ownership</h2>
<p class="muted">The member you choose becomes the owner; you stay as an admin.</p>
<form method="post" action="/dashboard/members/transfer" class="stack">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>New owner <select name="email"><% it.members.filter(function (m) { return m.role !== 'owner'; }).forEach(function (m) { %><option value="<%= m.email %>"><%= m.email %></option><% }) %></select></label>
  <button class="danger">Hand over ownership</button>
</form>
</section>
<% } %>`,

  invite: `<section class="card narrow">
<h1><%= it.heading %></h1>
<% if (it.invitation && it.invitation.state === 'pending') { %>
<p><% if (it.inviter) { %><strong><%= it.inviter.displayName %></strong> (<%= it.inviter.email %>) invites you<% } else { %>You are invited<% } %> to join the team <strong><%= it.teamName %></strong> as <strong><%= it.invitation.role %></strong>. The invitation is for <strong><%= it.invitation.email %></strong>.</p>
<% if (it.signedInAs === it.invitation.email) { %>
<form method="post" action="/dashboard/invite/<%= it.token %>/accept" class="stack"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="primary">Accept and join</button></form>
<% } else { %>
<% if (it.signedInAs) { %><p class="error" role="alert">You are signed in as <%= it.signedInAs %>. Log out, then open this link again and sign in as <%= it.invitation.email %>.</p><% } else { %>
<p>Already have a Formgate login for <%= it.invitation.email %>? <a href="/dashboard/login">Log in</a>, then open this link again to accept.</p>
<% if (it.sso) { %><form method="post" action="/dashboard/auth/oidc/accept" class="stack"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="invitationId" value="<%= it.invitation.id %>"><button>Accept with <%= it.sso.displayName %></button></form>
<p class="muted">The address your sign-in provider confirms must be <%= it.invitation.email %>.</p><% } %>
<% if (it.signupAllowed) { %>
<h2>New here? Create your login</h2>
<form method="post" action="/dashboard/invite/<%= it.token %>/signup" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Your name <input name="displayName" maxlength="200" autocomplete="name" value="<%= it.values.displayName || '' %>"></label>
  <label>Password <input type="password" name="password" autocomplete="new-password" aria-describedby="invite-password-error"></label>
  <% if (it.fieldErrors.password) { %><p class="field-error" id="invite-password-error"><%= it.fieldErrors.password %></p><% } %>
  <button class="primary">Create my login and join</button>
</form>
<% } %>
<% } %>
<% } %>
<% } else { %>
<p><%= it.text %></p>
<% } %>
</section>`,
};
