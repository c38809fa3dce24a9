/**
 * A form's settings page and the delete-form confirmation. The snippet comes first (what a new
 * form is opened for); the settings are grouped in sections, side by side on wide screens (in
 * pairs of about one height, so the page stays short), and
 * only the chosen bot check's fields show (CSS `:has()` on the select: no script needed; a browser
 * without it shows them all).
 */
export const settingsViews: Record<string, string> = {
  /** The plain snippet and its two variants, each with its copy button: the settings page and the read-only snippet page. */
  snippetVariants: `<p class="muted">Posts the page to Formgate, which redirects to your success page or its thank-you page.</p>
<pre id="snippet"><%= it.snippet %></pre>
<button type="button" class="copy" data-copy="snippet">Copy snippet</button><span class="copy-status" role="status"></span>
<details class="variant"><summary>With Formgate's script: submits in place</summary>
<p class="muted">The same form submits in place: field errors next to the fields, no double submissions, clear messages when offline or rate limited. Without JavaScript it posts as above.</p>
<pre id="snippet-script"><%= it.scriptSnippet %></pre>
<button type="button" class="copy" data-copy="snippet-script">Copy snippet</button><span class="copy-status" role="status"></span>
</details>
<details class="variant"><summary>React</summary>
<p class="muted">With <code>npm install formgate-client</code>.</p>
<pre id="snippet-react"><%= it.reactSnippet %></pre>
<button type="button" class="copy" data-copy="snippet-react">Copy snippet</button><span class="copy-status" role="status"></span>
</details>
`,
  settings: `<%~ include('@formNav', it) %>
<% var v = it.values, has = function (k) { return v[k] !== undefined; }, err = function (k) { return it.fieldErrors[k]; }; %>
<h1 class="page-title">Settings &amp; snippet</h1>
<nav class="jump" aria-label="Sections of this page"><a href="#snippet-section">Snippet</a><a href="#general">General</a><a href="#after-submit">After a submission</a><a href="#bot-check">Bot check &amp; filter</a><a href="#spam-rules">Spam rules</a><a href="#privacy">Privacy</a><a href="#files">File uploads</a><a href="#sealed">Sealed form</a><a href="#notifications">Email notifications</a><a href="#submitter">Confirmation &amp; language</a><a href="#delete">Delete</a></nav>
<section class="card" id="snippet-section">
<h2>HTML snippet</h2>
<p class="muted">Paste this into your page. Submit URL: <code class="submit-url" id="submit-url"><%= it.submitUrl %></code></p>
<h3>Plain HTML</h3>
<%~ include('@snippetVariants', it) %>
</section>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/settings" class="settings-form" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
<div class="settings-groups">
<section class="card stack" id="general">
  <h2>General</h2>
  <label>Name <input name="name" maxlength="200" value="<%= has('name') ? v.name : it.form.name %>" aria-describedby="name-error"></label>
  <% if (err('name')) { %><p class="field-error" id="name-error"><%= err('name') %></p><% } %>
  <label class="check"><input type="checkbox" name="isActive" value="1" <%= (has('isActive') ? v.isActive === '1' : it.form.isActive) ? 'checked' : '' %>> Accept submissions</label>
  <label class="check"><input type="checkbox" name="requireAccessKey" value="1" <%= (has('requireAccessKey') ? v.requireAccessKey === '1' : it.form.accessKey) ? 'checked' : '' %>> Require an access key</label>
  <label>Access key <input name="accessKey" maxlength="256" value="<%= has('accessKey') ? v.accessKey : (it.form.accessKey || '') %>" aria-describedby="accessKey-error"></label>
  <% if (err('accessKey')) { %><p class="field-error" id="accessKey-error"><%= err('accessKey') %></p><% } %>
  <p class="muted" id="access-key-note">The access key is visible in your page's source (the snippet carries it): it keeps other pages from posting to this form by accident or in bulk, but it is a filter, not a secret.</p>
</section>
<section class="card stack" id="after-submit">
  <h2>After a submission</h2>
  <label>Success URL <input name="successUrl" type="url" maxlength="2048" placeholder="<%= it.baseUrl %>/thanks" value="<%= has('successUrl') ? v.successUrl : (it.form.successUrl || '') %>" aria-describedby="successUrl-error"></label>
  <% if (err('successUrl')) { %><p class="field-error" id="successUrl-error"><%= err('successUrl') %></p><% } %>
  <label>Error URL <input name="errorUrl" type="url" maxlength="2048" value="<%= has('errorUrl') ? v.errorUrl : (it.form.errorUrl || '') %>" aria-describedby="errorUrl-error"></label>
  <% if (err('errorUrl')) { %><p class="field-error" id="errorUrl-error"><%= err('errorUrl') %></p><% } %>
  <label>Allowed redirect hosts <input name="allowedRedirectHosts" placeholder="shop.example.com, app.example.com" value="<%= has('allowedRedirectHosts') ? v.allowedRedirectHosts : it.form.allowedRedirectHosts.join(', ') %>" aria-describedby="allowedRedirectHosts-error"></label>
  <% if (err('allowedRedirectHosts')) { %><p class="field-error" id="allowedRedirectHosts-error"><%= err('allowedRedirectHosts') %></p><% } %>
  <label>Required fields (names separated by commas; a submission without a value in one is refused) <input name="requiredFields" placeholder="email, message" value="<%= has('requiredFields') ? v.requiredFields : it.form.requiredFields.join(', ') %>" aria-describedby="requiredFields-error"></label>
  <% if (err('requiredFields')) { %><p class="field-error" id="requiredFields-error"><%= err('requiredFields') %></p><% } %>
</section>
<section class="card stack" id="bot-check">
  <h2>Bot check</h2>
  <% var vendor = has('botCheck') ? v.botCheck : it.form.botCheck; %>
  <label>Every submission must pass <select name="botCheck" aria-describedby="botCheck-error">
    <% [['none', 'No bot check'], ['altcha', 'ALTCHA proof of work (served by Formgate, no third party)'], ['turnstile', 'Cloudflare Turnstile'], ['hcaptcha', 'hCaptcha'], ['recaptcha', 'Google reCAPTCHA']].forEach(function (o) { %><option value="<%= o[0] %>" <%= vendor === o[0] ? 'selected' : '' %>><%= o[1] %></option><% }) %>
  </select></label>
  <% if (err('botCheck')) { %><p class="field-error" id="botCheck-error"><%= err('botCheck') %></p><% } %>
  <p class="muted">A failed check files the submission as spam; nothing is lost. ALTCHA keeps your visitors' data on this server and asks them nothing; the others load the vendor's script in the visitor's browser. Only the chosen check's settings are shown.</p>
  <p class="muted vendor" data-vendor="none">No bot check: the honeypot and the spam rules still apply.</p>
  <fieldset class="vendor" data-vendor="altcha"><legend>ALTCHA</legend>
  <% var complexity = has('altchaComplexity') ? v.altchaComplexity : it.form.altchaComplexity; %>
  <label>Work per submission <select name="altchaComplexity" aria-describedby="altchaComplexity-error">
    <% [['low', 'Low (fastest for visitors)'], ['medium', 'Medium'], ['high', 'High (slowest for bots and visitors)']].forEach(function (o) { %><option value="<%= o[0] %>" <%= complexity === o[0] ? 'selected' : '' %>><%= o[1] %></option><% }) %>
  </select></label>
  <% if (err('altchaComplexity')) { %><p class="field-error" id="altchaComplexity-error"><%= err('altchaComplexity') %></p><% } %>
  <label>Minimum fill time (seconds, 0–60; sooner after the page loaded is spam; 0 is off) <input name="minFillSeconds" inputmode="numeric" value="<%= has('minFillSeconds') ? v.minFillSeconds : it.form.minFillSeconds %>" aria-describedby="minFillSeconds-error"></label>
  <% if (err('minFillSeconds')) { %><p class="field-error" id="minFillSeconds-error"><%= err('minFillSeconds') %></p><% } %>
  </fieldset>
  <fieldset class="vendor" data-vendor="turnstile"><legend>Cloudflare Turnstile</legend>
  <label>Turnstile secret <input name="turnstileSecret" maxlength="512" placeholder="<%= it.defaultSecrets.turnstile ? 'default: TURNSTILE_SECRET_KEY' : '' %>" value="<%= has('turnstileSecret') ? v.turnstileSecret : (it.form.turnstileSecret || '') %>" aria-describedby="turnstileSecret-error"></label>
  <% if (err('turnstileSecret')) { %><p class="field-error" id="turnstileSecret-error"><%= err('turnstileSecret') %></p><% } %>
  <label>Turnstile site key <input name="turnstileSiteKey" maxlength="256" placeholder="0x4AAAAAAA…" value="<%= has('turnstileSiteKey') ? v.turnstileSiteKey : (it.form.turnstileSiteKey || '') %>" aria-describedby="turnstileSiteKey-error"></label>
  <% if (err('turnstileSiteKey')) { %><p class="field-error" id="turnstileSiteKey-error"><%= err('turnstileSiteKey') %></p><% } %>
  <p class="muted" id="turnstile-keys">Both keys come from the Cloudflare dashboard, under <strong>Turnstile → Add widget</strong> (one widget for your site). The site key is public and goes into the snippet below; the secret stays here<%= it.defaultSecrets.turnstile ? ', or TURNSTILE_SECRET_KEY on the server is used' : ' (or set TURNSTILE_SECRET_KEY on the server for every form)' %>. Without a secret, the bot check cannot be required.</p>
  </fieldset>
  <fieldset class="vendor" data-vendor="hcaptcha"><legend>hCaptcha</legend>
  <label>hCaptcha secret <input name="hcaptchaSecret" maxlength="512" placeholder="<%= it.defaultSecrets.hcaptcha ? 'default: HCAPTCHA_SECRET_KEY' : '' %>" value="<%= has('hcaptchaSecret') ? v.hcaptchaSecret : (it.form.hcaptchaSecret || '') %>" aria-describedby="hcaptchaSecret-error"></label>
  <% if (err('hcaptchaSecret')) { %><p class="field-error" id="hcaptchaSecret-error"><%= err('hcaptchaSecret') %></p><% } %>
  <label>hCaptcha site key <input name="hcaptchaSiteKey" maxlength="256" value="<%= has('hcaptchaSiteKey') ? v.hcaptchaSiteKey : (it.form.hcaptchaSiteKey || '') %>" aria-describedby="hcaptchaSiteKey-error"></label>
  <% if (err('hcaptchaSiteKey')) { %><p class="field-error" id="hcaptchaSiteKey-error"><%= err('hcaptchaSiteKey') %></p><% } %>
  </fieldset>
  <fieldset class="vendor" data-vendor="recaptcha"><legend>Google reCAPTCHA</legend>
  <label>reCAPTCHA secret <input name="recaptchaSecret" maxlength="512" placeholder="<%= it.defaultSecrets.recaptcha ? 'default: RECAPTCHA_SECRET_KEY' : '' %>" value="<%= has('recaptchaSecret') ? v.recaptchaSecret : (it.form.recaptchaSecret || '') %>" aria-describedby="recaptchaSecret-error"></label>
  <% if (err('recaptchaSecret')) { %><p class="field-error" id="recaptchaSecret-error"><%= err('recaptchaSecret') %></p><% } %>
  <label>reCAPTCHA site key <input name="recaptchaSiteKey" maxlength="256" value="<%= has('recaptchaSiteKey') ? v.recaptchaSiteKey : (it.form.recaptchaSiteKey || '') %>" aria-describedby="recaptchaSiteKey-error"></label>
  <% if (err('recaptchaSiteKey')) { %><p class="field-error" id="recaptchaSiteKey-error"><%= err('recaptchaSiteKey') %></p><% } %>
  <label>Lowest v3 score accepted (0–1; v2 tokens have none) <input name="recaptchaMinScore" inputmode="decimal" value="<%= has('recaptchaMinScore') ? v.recaptchaMinScore : it.form.recaptchaMinScore %>" aria-describedby="recaptchaMinScore-error"></label>
  <% if (err('recaptchaMinScore')) { %><p class="field-error" id="recaptchaMinScore-error"><%= err('recaptchaMinScore') %></p><% } %>
  </fieldset>
  <% if (it.missingSecret) { %><p class="error" role="alert">The bot check needs a secret and none is set: every submission is filed as spam. Enter the secret.</p><% } %>
  <h2>Learning spam filter</h2>
  <% var filter = has('spamFilter') ? v.spamFilter : it.form.spamFilter; %>
  <label>Filter <select name="spamFilter" aria-describedby="spamFilter-error"><option value="off" <%= filter === 'learn' ? '' : 'selected' %>>Off</option><option value="learn" <%= filter === 'learn' ? 'selected' : '' %>>Learn from my marks and file what it is sure is spam</option></select></label>
  <% if (err('spamFilter')) { %><p class="field-error" id="spamFilter-error"><%= err('spamFilter') %></p><% } %>
  <p class="muted" id="spam-filter-examples"><%= it.spamFilterStatus %> It learns from your "Spam" and "Not spam" marks on every form of this account (on good submissions too) and from what the traps catch on forms using it; it never loses a submission and never sends your data anywhere.</p>
</section>
<section class="card stack" id="spam-rules">
  <h2>Spam rules</h2>
  <p class="muted">Checked after the honeypot and before the bot check; a match files the submission as spam.</p>
  <% if (it.form.sealed) { %><p class="muted sealed-off-note">Off while the form is sealed: the server cannot read its fields.</p><% } %>
  <label>Blocked terms (one per line; a field containing one is spam) <textarea name="blockedTerms" rows="3" aria-describedby="blockedTerms-error"><%= has('blockedTerms') ? v.blockedTerms : it.form.blockedTerms.join('\\n') %></textarea></label>
  <% if (err('blockedTerms')) { %><p class="field-error" id="blockedTerms-error"><%= err('blockedTerms') %></p><% } %>
  <label>Blocked emails (one per line: an address, or @domain for the domain and its subdomains) <textarea name="blockedEmails" rows="3" aria-describedby="blockedEmails-error"><%= has('blockedEmails') ? v.blockedEmails : it.form.blockedEmails.join('\\n') %></textarea></label>
  <% if (err('blockedEmails')) { %><p class="field-error" id="blockedEmails-error"><%= err('blockedEmails') %></p><% } %>
  <label>Maximum links (more is spam; empty for no limit) <input name="maxLinks" inputmode="numeric" value="<%= has('maxLinks') ? v.maxLinks : (it.form.maxLinks === null ? '' : it.form.maxLinks) %>" aria-describedby="maxLinks-error"></label>
  <% if (err('maxLinks')) { %><p class="field-error" id="maxLinks-error"><%= err('maxLinks') %></p><% } %>
  <label>Allowed origins (hosts of the pages the form may be posted from; empty for any) <input name="allowedOrigins" placeholder="www.example.com, example.com" value="<%= has('allowedOrigins') ? v.allowedOrigins : it.form.allowedOrigins.join(', ') %>" aria-describedby="allowedOrigins-error"></label>
  <% if (err('allowedOrigins')) { %><p class="field-error" id="allowedOrigins-error"><%= err('allowedOrigins') %></p><% } %>
</section>
<section class="card stack" id="privacy">
  <h2>Privacy</h2>
  <label>Keep submissions for (days, 1–3650; empty keeps them) <input name="retentionDays" inputmode="numeric" value="<%= has('retentionDays') ? v.retentionDays : (it.form.retentionDays === null ? '' : it.form.retentionDays) %>" aria-describedby="retentionDays-error"></label>
  <% if (err('retentionDays')) { %><p class="field-error" id="retentionDays-error"><%= err('retentionDays') %></p><% } %>
  <% var ipMode = has('storeIp') ? v.storeIp : it.form.storeIp; %>
  <label>IP addresses <select name="storeIp" aria-describedby="storeIp-error"><option value="full" <%= ipMode === 'none' ? '' : 'selected' %>>Store the full address</option><option value="none" <%= ipMode === 'none' ? 'selected' : '' %>>Store no address (the country is still recorded)</option></select></label>
  <% if (err('storeIp')) { %><p class="field-error" id="storeIp-error"><%= err('storeIp') %></p><% } %>
</section>
<section class="card stack" id="files">
  <h2>File uploads</h2>
  <% var filesMode = has('files') ? v.files : it.form.files; %>
  <label>Uploaded files <select name="files" aria-describedby="files-error"><option value="off" <%= filesMode === 'store' ? '' : 'selected' %>>Ignore file parts (default)</option><option value="store" <%= filesMode === 'store' ? 'selected' : '' %>>Keep them with the submission</option></select></label>
  <% if (err('files')) { %><p class="field-error" id="files-error"><%= err('files') %></p><% } %>
  <label>Files per submission (1–20) <input name="maxFiles" inputmode="numeric" value="<%= has('maxFiles') ? v.maxFiles : it.form.maxFiles %>" aria-describedby="maxFiles-error"></label>
  <% if (err('maxFiles')) { %><p class="field-error" id="maxFiles-error"><%= err('maxFiles') %></p><% } %>
  <label>Largest file (like 10 MiB or 512 KiB; at most <%= it.fileSizes.ceiling %>) <input name="maxFileBytes" value="<%= has('maxFileBytes') ? v.maxFileBytes : it.fileSizes.maxFileBytes %>" aria-describedby="maxFileBytes-error"></label>
  <% if (err('maxFileBytes')) { %><p class="field-error" id="maxFileBytes-error"><%= err('maxFileBytes') %></p><% } %>
  <label>All files of a submission (like 25 MiB) <input name="maxTotalBytes" value="<%= has('maxTotalBytes') ? v.maxTotalBytes : it.fileSizes.maxTotalBytes %>" aria-describedby="maxTotalBytes-error"></label>
  <% if (err('maxTotalBytes')) { %><p class="field-error" id="maxTotalBytes-error"><%= err('maxTotalBytes') %></p><% } %>
  <label>File types (groups images, pdf, text, csv, office, zip, or MIME types; empty takes them all) <input name="fileTypes" placeholder="images, pdf" value="<%= has('fileTypes') ? v.fileTypes : it.form.fileTypes.join(', ') %>" aria-describedby="fileTypes-error"></label>
  <% if (err('fileTypes')) { %><p class="field-error" id="fileTypes-error"><%= err('fileTypes') %></p><% } %>
</section>
</div>
<p class="save-bar"><button class="primary">Save settings</button> <span class="muted">Saves every section above (not the snippet, notifications or confirmation email below).</span></p>
</form>
<div class="settings-groups">
<div><%~ include('@notifySettings', it) %>
<%~ include('@sealedSettings', it) %>
<section class="card" id="delete">
<h2>Delete this form</h2>
<p class="muted">Deletes the form with all its submissions, hooks and queued deliveries.</p>
<a class="button danger" href="/dashboard/forms/<%= it.form.id %>/delete">Delete form…</a>
</section></div>
<%~ include('@submitterSettings', it) %>
</div>`,

  deleteForm: `<%~ include('@formNav', it) %>
<section class="card narrow">
<h1>Delete “<%= it.form.name %>”?</h1>
<p>This deletes the form <strong><%= it.form.name %></strong> (<code><%= it.form.id %></code>) with its <%= it.count %> submission(s), its hooks and their deliveries. It cannot be undone.</p>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/delete" class="stack">
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label>Type the form's name to confirm <input name="confirmName" required autocomplete="off"></label>
  <button class="danger">Delete “<%= it.form.name %>” for good</button>
</form>
</section>`,
};
