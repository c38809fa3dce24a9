/** Log in, sign up and the password-reset pages (reachable without a session). */
export const authViews: Record<string, string> = {
  auth: `<section class="card narrow">
<h1><%= it.heading %></h1>
<% if (it.sso) { %><p><a class="button primary" href="<%= it.sso.href %>"><%= it.sso.displayName %></a></p>
<% if (it.passwordLogin !== false) { %><p class="muted">Or with your email and a password:</p><% } %><% } %>
<% if (it.passwordLogin !== false) { %><form method="post" action="<%= it.action %>">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Email <input type="email" name="email" required value="<%= it.email || '' %>" autocomplete="email" aria-describedby="email-error"></label>
  <% if (it.fieldErrors.email) { %><p class="field-error" id="email-error"><%= it.fieldErrors.email %></p><% } %>
  <% if (it.signup) { %><label>Name <input name="displayName" required maxlength="200" value="<%= it.displayName || '' %>" aria-describedby="displayName-error"></label>
  <% if (it.fieldErrors.displayName) { %><p class="field-error" id="displayName-error"><%= it.fieldErrors.displayName %></p><% } %><% } %>
  <label>Password <input type="password" name="password" required minlength="8" autocomplete="<%= it.signup ? 'new-password' : 'current-password' %>" aria-describedby="password-error"></label>
  <% if (it.fieldErrors.password) { %><p class="field-error" id="password-error"><%= it.fieldErrors.password %></p><% } %>
  <button class="primary"><%= it.heading %></button>
</form>
<% if (it.action === '/dashboard/login') { %><p><a href="/dashboard/forgot-password">Forgot password?</a></p><% } %>
<% } %>
<p class="muted"><% if (it.signup) { %>Already have an account? <a href="/dashboard/login">Log in</a><% } else if (it.signupOpen && it.passwordLogin !== false) { %><a href="/dashboard/signup">Create an account</a><% } %></p>
</section>`,

  ssoFailed: `<section class="card narrow">
<h1>Single sign-on did not work</h1>
<p><%= it.reason %></p>
<p><a class="button primary" href="/dashboard/auth/oidc">Try again</a></p>
<% if (it.passwordLogin) { %><p class="muted"><a href="/dashboard/login">Log in with a password instead</a></p><% } %>
</section>`,

  forgotPassword: `<section class="card narrow">
<h1>Forgot password?</h1>
<% if (!it.enabled) { %>
<p>This server cannot send email (its operator has not set <code>SMTP_URL</code>). Ask the operator to reset your password.</p>
<% } else { %>
<form method="post" action="/dashboard/forgot-password">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Email <input type="email" name="email" required maxlength="254" autocomplete="email"></label>
  <button class="primary">Send me a reset link</button>
</form>
<% } %>
<p class="muted"><a href="/dashboard/login">Back to log in</a></p>
</section>`,

  resetPassword: `<section class="card narrow">
<h1>Choose a new password</h1>
<form method="post" action="/dashboard/reset-password/<%= it.token %>">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>New password <input type="password" name="password" required minlength="8" maxlength="1024" autocomplete="new-password"></label>
  <button class="primary">Set password</button>
</form>
</section>`,
};
