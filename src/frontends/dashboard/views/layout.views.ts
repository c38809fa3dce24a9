/** The frame of every page, the form navigation and a plain message page. */
export const layoutViews: Record<string, string> = {
  layout: `<!doctype html>
<html lang="en" data-tz="<%= it.timeZone %>" data-tz-cookie="<%= it.zoneCookie || '' %>"<% if (it.reloadable) { %> data-reloadable<% } %>>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · Formgate</title>
<link rel="stylesheet" href="/dashboard/assets/app.css">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<script src="/dashboard/assets/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/dashboard">Formgate</a>
  <% if (it.account) { %>
  <nav aria-label="Main">
    <span class="who">Signed in as <strong><%= it.user ? it.user.email : it.account.email %></strong><% if (it.role) { %> (<%= it.role %>)<% } %></span>
    <% if (it.memberships && it.memberships.length > 1) { %>
    <form method="post" action="/dashboard/account/switch" class="inline switcher">
      <input type="hidden" name="_csrf" value="<%= it.csrf %>">
      <label for="account-switcher">Account</label>
      <select id="account-switcher" name="accountId">
        <% it.memberships.forEach(function (m) { %><option value="<%= m.accountId %>"<% if (m.accountId === it.account.id) { %> selected<% } %>><%= m.teamName %> · <%= m.role %></option><% }) %>
      </select>
      <button class="small">Switch</button>
    </form>
    <% } %>
    <a href="/dashboard/forms">Forms</a>
    <% if (it.role === 'owner' || it.role === 'admin') { %><a href="/dashboard/keys">API keys</a>
    <a href="/dashboard/hooks">Hooks</a><% } %>
    <a href="/dashboard/members">Members</a>
    <a href="/dashboard/account">Account</a>
    <% if (it.user && it.user.isAdmin) { %><a href="/dashboard/admin">Admin</a><% } %>
    <form method="post" action="/dashboard/logout" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="link">Log out</button></form>
  </nav>
  <% } %>
</header>
<main>
<% if (it.notice) { %><p class="notice"><%= it.notice %></p><% } %>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<%~ it.body %>
</main>
<footer class="foot muted"><% if (it.timeZone === 'UTC') { %>Times, date filters and chart days are in <span id="tz">UTC</span>.<% } else { %>Times, date filters and chart days are in your browser's time zone, <span id="tz"><%= it.timeZone %></span>.<% } %></footer>
</body>
</html>`,

  formNav: `<p class="crumbs"><a href="/dashboard/forms">Forms</a> › <strong><%= it.form.name %></strong> ·
<a href="/dashboard/forms/<%= it.form.id %>/submissions">Submissions</a> ·
<% if (it.can('forms.manage')) { %><a href="/dashboard/forms/<%= it.form.id %>/settings">Settings &amp; snippet</a> ·<% } else { %><a href="/dashboard/forms/<%= it.form.id %>/snippet">Snippet</a> ·<% } %>
<% if (it.can('integrations.manage')) { %><a href="/dashboard/forms/<%= it.form.id %>/integrations">Integrations</a> ·<% } %>
<a href="/dashboard/forms/<%= it.form.id %>/email-log">Email log</a></p>`,

  // Someone who opened a link from an email may have no account: "Back to the dashboard" is only for those signed in.
  message: `<section class="card narrow"><h1><%= it.heading %></h1><p><%= it.text %></p>
<% (it.links || []).forEach(function (l) { %><p><a href="<%= l.href %>"><%= l.text %></a></p><% }) %>
<% if (it.account && !it.links) { %><p><a href="/dashboard">Back to the dashboard</a></p><% } %></section>`,
};
