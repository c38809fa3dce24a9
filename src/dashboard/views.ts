import { Eta } from 'eta';
import { emailTemplates } from './email.views.js';

/**
 * Server-rendered pages. Eta escapes every `<%= %>` by default; `<%~ %>` (unescaped) is used only
 * for the layout's body, which is itself rendered escaped. Submission data is attacker-controlled.
 */
const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });

const templates: Record<string, string> = {
  layout: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · Formgate</title>
<link rel="stylesheet" href="/dashboard/assets/app.css">
<script src="/dashboard/assets/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/dashboard">Formgate</a>
  <% if (it.account) { %>
  <nav>
    <a href="/dashboard/forms">Forms</a>
    <a href="/dashboard/keys">API keys</a>
    <a href="/dashboard/hooks">Hooks</a>
    <a href="/dashboard/account">Account</a>
    <form method="post" action="/dashboard/logout" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="link">Log out</button></form>
  </nav>
  <% } %>
</header>
<main>
<% if (it.notice) { %><p class="notice"><%= it.notice %></p><% } %>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<%~ it.body %>
</main>
</body>
</html>`,

  auth: `<section class="card narrow">
<h1><%= it.heading %></h1>
<form method="post" action="<%= it.action %>">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Email <input type="email" name="email" required value="<%= it.email || '' %>" autocomplete="email"></label>
  <% if (it.signup) { %><label>Name <input name="displayName" required maxlength="200" value="<%= it.displayName || '' %>"></label><% } %>
  <label>Password <input type="password" name="password" required minlength="8" autocomplete="<%= it.signup ? 'new-password' : 'current-password' %>"></label>
  <button class="primary"><%= it.heading %></button>
</form>
<% if (it.action === '/dashboard/login') { %><p><a href="/dashboard/forgot-password">Forgot password?</a></p><% } %>
<p class="muted"><%~ it.other %></p>
</section>`,

  forms: `<section class="card">
<div class="row"><h1>Forms</h1></div>
<% if (it.forms.length === 0) { %><p class="muted">No forms yet. Create your first one below.</p><% } else { %>
<table>
<thead><tr><th>Name</th><th>ID</th><th>Status</th><th>Created</th></tr></thead>
<tbody>
<% it.forms.forEach(function (f) { %>
<tr><td><a href="/dashboard/forms/<%= f.id %>/submissions"><%= f.name %></a></td><td><code><%= f.id %></code></td>
<td><span class="badge <%= f.isActive ? 'ok' : 'off' %>"><%= f.isActive ? 'Active' : 'Inactive' %></span></td><td><%= f.createdAt.slice(0, 16).replace('T', ' ') %></td></tr>
<% }) %>
</tbody></table>
<% } %>
</section>
<section class="card">
<h2>New form</h2>
<form method="post" action="/dashboard/forms" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input name="name" placeholder="Form name, e.g. Contact" required maxlength="200">
  <button class="primary">Create form</button>
</form>
</section>`,

  formNav: `<p class="crumbs"><a href="/dashboard/forms">Forms</a> › <strong><%= it.form.name %></strong> ·
<a href="/dashboard/forms/<%= it.form.id %>/submissions">Submissions</a> ·
<a href="/dashboard/forms/<%= it.form.id %>/settings">Settings &amp; snippet</a> ·
<a href="/dashboard/forms/<%= it.form.id %>/email-log">Email log</a></p>`,

  settings: `<%~ include('@formNav', it) %>
<section class="card">
<h1>Settings</h1>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/settings" class="stack">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Name <input name="name" required maxlength="200" value="<%= it.form.name %>"></label>
  <label class="check"><input type="checkbox" name="isActive" value="1" <%= it.form.isActive ? 'checked' : '' %>> Accept submissions</label>
  <label class="check"><input type="checkbox" name="requireAccessKey" value="1" <%= it.form.accessKey ? 'checked' : '' %>> Require an access key</label>
  <label>Access key <input name="accessKey" maxlength="256" value="<%= it.form.accessKey || '' %>"></label>
  <label class="check"><input type="checkbox" name="requireBotCheck" value="1" <%= it.form.requireBotCheck ? 'checked' : '' %>> Require the Cloudflare Turnstile bot check</label>
  <label>Turnstile secret <input name="turnstileSecret" maxlength="512" placeholder="<%= it.hasDefaultSecret ? 'default: TURNSTILE_SECRET_KEY' : '' %>" value="<%= it.form.turnstileSecret || '' %>"></label>
  <label>Success URL <input name="successUrl" type="url" maxlength="2048" placeholder="<%= it.baseUrl %>/thanks" value="<%= it.form.successUrl || '' %>"></label>
  <label>Error URL <input name="errorUrl" type="url" maxlength="2048" value="<%= it.form.errorUrl || '' %>"></label>
  <label>Allowed redirect hosts <input name="allowedRedirectHosts" placeholder="shop.example.com, app.example.com" value="<%= it.form.allowedRedirectHosts.join(', ') %>"></label>
  <button class="primary">Save settings</button>
</form>
</section>
<section class="card">
<h2>HTML snippet</h2>
<p class="muted">Paste this into your page. Submit URL: <code><%= it.submitUrl %></code></p>
<pre id="snippet"><%= it.snippet %></pre>
<button type="button" class="copy" data-copy="snippet">Copy snippet</button>
</section>
<%~ include('@notifySettings', it) %>`,

  submissions: `<%~ include('@formNav', it) %>
<section class="card">
<div class="row">
  <h1>Submissions</h1>
  <nav class="tabs">
    <a href="?" class="<%= it.spam ? '' : 'active' %>">Inbox (<%= it.inboxCount %>)</a>
    <a href="?spam=1" class="<%= it.spam ? 'active' : '' %>">Spam (<%= it.spamCount %>)</a>
  </nav>
  <span class="grow"></span>
  <a class="button" href="/dashboard/forms/<%= it.form.id %>/export.csv">Export CSV</a>
  <a class="button" href="/dashboard/forms/<%= it.form.id %>/export.ndjson">Export NDJSON</a>
</div>
<% if (it.submissions.length === 0) { %><p class="muted">Nothing here yet.</p><% } else { %>
<table>
<thead><tr><th>Received</th><th>Country</th><th>Fields</th></tr></thead>
<tbody>
<% it.submissions.forEach(function (s) { %>
<tr><td><a href="/dashboard/submissions/<%= s.id %>"><%= s.createdAt.replace('T', ' ').slice(0, 19) %></a></td><td><%= s.country %></td>
<td class="preview"><%= s.preview %></td></tr>
<% }) %>
</tbody></table>
<% } %>
<% if (it.nextCursor) { %><p><a class="button" href="?<%= it.spam ? 'spam=1&' : '' %>cursor=<%= it.nextCursor %>">Older submissions →</a></p><% } %>
</section>`,

  submission: `<%~ include('@formNav', it) %>
<section class="card">
<h1>Submission <code><%= it.submission.id %></code></h1>
<p class="muted">Received <%= it.submission.createdAt %> · <%= it.submission.country %> · <%= it.submission.isSpam ? 'Spam' : 'Inbox' %></p>
<table class="fields">
<% it.fields.forEach(function (f) { %><tr><th><%= f.name %></th><td><%= f.value %></td></tr><% }) %>
</table>
<h2>Request</h2>
<table class="fields">
<tr><th>IP</th><td><%= it.submission.ip %></td></tr>
<tr><th>User agent</th><td><%= it.submission.userAgent %></td></tr>
<tr><th>Referer</th><td><%= it.submission.referer %></td></tr>
</table>
<form method="post" action="/dashboard/submissions/<%= it.submission.id %>/delete">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <button class="danger">Delete submission</button>
</form>
</section>`,

  keys: `<section class="card">
<h1>API keys</h1>
<% if (it.created) { %>
<div class="secret"><p><strong>Your new key.</strong> Copy it now: it is shown only once.</p>
<pre id="new-key"><%= it.created %></pre><button type="button" class="copy" data-copy="new-key">Copy key</button></div>
<% } %>
<% if (it.keys.length === 0) { %><p class="muted">No keys yet.</p><% } else { %>
<table>
<thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th></th></tr></thead>
<tbody>
<% it.keys.forEach(function (k) { %>
<tr><td><%= k.name %></td><td><code><%= k.prefix %>…</code></td><td><%= k.createdAt.slice(0, 16).replace('T', ' ') %></td>
<td><%= k.lastUsedAt ? k.lastUsedAt.slice(0, 16).replace('T', ' ') : 'never' %></td>
<td><% if (k.revokedAt) { %><span class="badge off">Revoked</span><% } else { %>
<form method="post" action="/dashboard/keys/<%= k.id %>/revoke" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Revoke</button></form><% } %></td></tr>
<% }) %>
</tbody></table>
<% } %>
</section>
<section class="card">
<h2>New key</h2>
<form method="post" action="/dashboard/keys" class="row">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <input name="name" placeholder="Key name, e.g. Zapier" required maxlength="100">
  <button class="primary">Create key</button>
</form>
</section>`,

  hooks: `<section class="card">
<h1>REST hooks</h1>
<p class="muted">Subscriptions are created through the API (<code>POST /v1/api/hooks</code>, Pro plan or higher).</p>
<% if (it.hooks.length === 0) { %><p class="muted">No subscriptions.</p><% } %>
<% it.hooks.forEach(function (h) { %>
<div class="hook">
  <div class="row"><code><%= h.targetUrl %></code><span class="muted">form <%= h.formId %> · since <%= h.createdAt.slice(0, 10) %></span><span class="grow"></span>
  <form method="post" action="/dashboard/hooks/<%= h.id %>/delete" class="inline"><input type="hidden" name="_csrf" value="<%= it.csrf %>"><button class="danger small">Delete</button></form></div>
  <% if (h.attempts.length === 0) { %><p class="muted">No deliveries yet.</p><% } else { %>
  <table class="attempts"><thead><tr><th>Time</th><th>Submission</th><th>Result</th><th>Status</th><th>Duration</th><th>Error</th></tr></thead><tbody>
  <% h.attempts.forEach(function (a) { %>
  <tr><td><%= (a.attemptedAt || a.createdAt).replace('T', ' ').slice(0, 19) %></td><td><code><%= a.submissionId %></code></td><td><%= a.state %></td>
  <td><%= a.responseStatus === null ? '—' : a.responseStatus %></td><td><%= a.durationMs === null ? '—' : a.durationMs + ' ms' %></td><td><%= a.error || '' %></td></tr>
  <% }) %></tbody></table>
  <% } %>
</div>
<% }) %>
</section>`,

  account: `<section class="card narrow">
<h1>Account</h1>
<table class="fields">
<tr><th>Email</th><td><%= it.account.email %></td></tr>
<tr><th>Plan</th><td><%= it.account.planId %></td></tr>
</table>
<form method="post" action="/dashboard/account" class="stack">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Display name <input name="displayName" required maxlength="200" value="<%= it.account.displayName %>"></label>
  <button class="primary">Save</button>
</form>
</section>`,

  message: `<section class="card narrow"><h1><%= it.heading %></h1><p><%= it.text %></p><p><a href="/dashboard">Back to the dashboard</a></p></section>`,
};

for (const [name, template] of Object.entries({ ...templates, ...emailTemplates })) eta.loadTemplate(`@${name}`, template);

export interface PageContext {
  title: string;
  account?: { id: string } | undefined;
  csrf?: string;
  notice?: string;
  error?: string;
}

/** Renders a page into the layout. */
export function renderPage(view: string, page: PageContext, data: Record<string, unknown> = {}): string {
  const body = eta.render(`@${view}`, { ...page, ...data });
  return eta.render('@layout', { ...page, body });
}
