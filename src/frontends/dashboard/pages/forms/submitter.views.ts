/**
 * The submitter's side of a form's settings (docs/email.md, docs/api.md): confirmation email with a
 * preview rendered server-side from a sample submission, notification subject, thank-you page and
 * language. The preview is folded away until the section is saved (it doubled the page's height).
 * Everything owner-written is printed with `<%= %>` (escaped); the preview's HTML is
 * shown as text in a <pre>, never rendered.
 */
export const submitterViews: Record<string, string> = {
  submitterSettings: `<section class="card" id="submitter">
<h2>Confirmation email, thank-you page and language</h2>
<% var s = it.submitter, sv = s.values, shas = function (k) { return sv[k] !== undefined; }, serr = function (k) { return s.fieldErrors[k]; }; %>
<form method="post" action="/dashboard/forms/<%= it.form.id %>/submitter" class="stack" novalidate>
  <input type="hidden" name="_csrf" value="<%= it.csrf %>">
  <label class="check"><input type="checkbox" name="autoReplyEnabled" value="1" <%= (shas('autoReplyEnabled') ? sv.autoReplyEnabled === '1' : it.form.autoReply.enabled) ? 'checked' : '' %>> Send a confirmation email to the person who submitted</label>
  <label>Field holding their address <input name="autoReplyField" maxlength="256" value="<%= shas('autoReplyField') ? sv.autoReplyField : it.form.autoReply.field %>" aria-describedby="autoReply.field-error"></label>
  <% if (serr('autoReply.field')) { %><p class="field-error" id="autoReply.field-error"><%= serr('autoReply.field') %></p><% } %>
  <label>Confirmation subject (empty for the default) <input name="autoReplySubject" maxlength="200" value="<%= shas('autoReplySubject') ? sv.autoReplySubject : (it.form.autoReply.subject || '') %>" aria-describedby="autoReply.subject-error"></label>
  <% if (serr('autoReply.subject')) { %><p class="field-error" id="autoReply.subject-error"><%= serr('autoReply.subject') %></p><% } %>
  <label>Confirmation text (plain text; empty for the default) <textarea name="autoReplyBody" rows="5" maxlength="5000" aria-describedby="autoReply.body-error"><%= shas('autoReplyBody') ? sv.autoReplyBody : (it.form.autoReply.body || '') %></textarea></label>
  <% if (serr('autoReply.body')) { %><p class="field-error" id="autoReply.body-error"><%= serr('autoReply.body') %></p><% } %>
  <p class="muted">Use <code>{{field}}</code> for a submitted field, and <code>{{form.name}}</code>, <code>{{submission.id}}</code>, <code>{{submission.createdAt}}</code>. Nothing else is allowed. At most one per address per hour and <%= it.form.autoReplyDailyLimit %> per day are sent; <%= s.suppressionCount %> address(es) have unsubscribed on this server.</p>
  <label>Notification subject (to you) <input name="notifySubject" maxlength="200" value="<%= shas('notifySubject') ? sv.notifySubject : it.form.notifySubject %>" aria-describedby="notifySubject-error"></label>
  <% if (serr('notifySubject')) { %><p class="field-error" id="notifySubject-error"><%= serr('notifySubject') %></p><% } %>
  <label>Thank-you page title (empty for the default) <input name="thanksTitle" maxlength="120" value="<%= shas('thanksTitle') ? sv.thanksTitle : (it.form.thanksTitle || '') %>" aria-describedby="thanksTitle-error"></label>
  <% if (serr('thanksTitle')) { %><p class="field-error" id="thanksTitle-error"><%= serr('thanksTitle') %></p><% } %>
  <label>Thank-you page message <textarea name="thanksMessage" rows="3" maxlength="2000" aria-describedby="thanksMessage-error"><%= shas('thanksMessage') ? sv.thanksMessage : (it.form.thanksMessage || '') %></textarea></label>
  <% if (serr('thanksMessage')) { %><p class="field-error" id="thanksMessage-error"><%= serr('thanksMessage') %></p><% } %>
  <% var lang = shas('language') ? sv.language : it.form.language; %>
  <label>Language of the visitor's pages and default texts <select name="language">
    <% [['auto', 'Automatic (the browser\\'s language)'], ['en', 'English'], ['de', 'Deutsch'], ['fr', 'Français'], ['es', 'Español'], ['pt', 'Português']].forEach(function (o) { %>
    <option value="<%= o[0] %>" <%= lang === o[0] ? 'selected' : '' %>><%= o[1] %></option>
    <% }) %>
  </select></label>
  <button class="primary">Save and preview</button>
</form>
<details class="variant" id="preview"<%= Object.keys(sv).length > 0 ? ' open' : '' %>><summary>Preview of the confirmation (sample submission)</summary>
<p><strong>Subject:</strong> <span id="preview-subject"><%= s.preview.subject %></span></p>
<pre id="preview-text"><%= s.preview.text %></pre>
</details>
</section>`,
};
