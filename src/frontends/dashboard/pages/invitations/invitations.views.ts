/**
 * Invitations waiting for a person's address, each joined only by its own button: after single
 * sign-on with no account here yet (accepting goes through the provider once more), or signed in.
 */
export const invitationViews: Record<string, string> = {
  invitations: `<section class="card narrow">
<h1>Invitations for <%= it.email %></h1>
<% if (!it.confirmed) { %>
<p id="invitations-unconfirmed">Nothing shows yet that <strong><%= it.email %></strong> is yours, so invitations to it are accepted only through the link in their email.</p>
<% } else if (it.invitations.length === 0) { %>
<p id="no-invitations">No invitation is waiting for <%= it.email %>.</p>
<% } else { %>
<p><%= it.signedIn ? 'These accounts invited your address.' : 'You signed in as ' + it.email + ', and these accounts on this server invited that address.' %> Nothing is joined until you accept: choose each one you want<%= it.signedIn ? '' : ' (your sign-in provider confirms it is you once more)' %>.</p>
<div class="table-wrap">
<table class="stacked" id="invitations">
<thead><tr><th>Account</th><th>Role</th><th>Until</th><th><span class="sr">Actions</span></th></tr></thead>
<tbody>
<% it.invitations.forEach(function (inv) { %>
<tr><td data-label="Account"><%= inv.teamName %><% if (inv.teamName !== inv.accountEmail) { %> <span class="muted">(<%= inv.accountEmail %>)</span><% } %></td><td data-label="Role"><%= inv.role %></td><td data-label="Until"><%~ it.h.timeTag(inv.expiresAt) %></td>
<td data-label="Actions"><% if (it.signedIn) { %><form method="post" action="/dashboard/invitations/<%= inv.id %>/accept" class="inline"><% } else { %><form method="post" action="/dashboard/auth/oidc/accept" class="inline"><input type="hidden" name="invitationId" value="<%= inv.id %>"><% } %>
<input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="primary small">Join <%= inv.teamName %> as <%= inv.role %></button></form></td></tr>
<% }) %>
</tbody></table>
</div>
<% } %>
<% if (it.signedIn) { %><p><a href="/dashboard/forms">Go to your forms</a></p><% } %>
</section>`,
};
