/**
 * The settings page's "Sealed form" section: the recipients a sealed form's submissions are
 * encrypted to in the visitor's browser, adding one by pasting its `age1…` recipient, removing
 * one, and unsealing (folded while the form is not sealed). Its own partial, so the in-browser key maker can be added beside it.
 */
export const sealedViews: Record<string, string> = {
  sealedSettings: `<% var sealed = it.form.sealed, sv = it.sealed.values, se = it.sealed.fieldErrors; %>
<section class="card stack" id="sealed">
  <h2>Sealed form</h2>
  <% if (sealed) { %>
  <p class="secret" id="sealed-notice"><strong>This form is sealed.</strong> Visitors' browsers encrypt the fields to the recipients below before sending, and this server stores only the ciphertext: it cannot read them. So the spam rules, required fields, the learning filter, search, the confirmation email and field values in notification emails, chat and exports are off for it; bot checks, the honeypot, rate limits, hooks (they carry the ciphertext), emails saying a sealed submission arrived, and retention still work. Files cannot be sent to a sealed form.</p>
  <p class="muted">The page needs Formgate's script (the snippet's "With Formgate's script" variant): it carries these recipients in <code>data-formgate-seal</code>, and a post without it is refused with <code>seal_required</code>. Only a holder of a matching identity can read a submission: keep a second recipient offline so a lost key does not lose them (docs/sealed-forms.md).</p>
  <table class="stacked" id="sealed-recipients">
  <thead><tr><th>Recipient</th><th>Label</th><th><span class="sr">Remove</span></th></tr></thead>
  <tbody>
  <% sealed.recipients.forEach(function (r) { %>
  <tr><td data-label="Recipient"><code class="recipient"><%= r.recipient %></code></td><td data-label="Label"><%= r.label || '' %></td>
  <td><% if (sealed.recipients.length > 1) { %><form method="post" action="/dashboard/forms/<%= it.form.id %>/sealed/remove" class="inline">
    <input type="hidden" name="_csrf" value="<%= it.csrf %>"><input type="hidden" name="recipient" value="<%= r.recipient %>">
    <button class="danger small">Remove</button></form><% } %></td></tr>
  <% }) %>
  </tbody></table>
  <p class="muted">Removing a recipient, or unsealing, changes only what new submissions are encrypted to; what was stored stays as it was sealed.</p>
  <% } else { %>
  <p class="muted" id="sealed-off">Off. Sealed, a form's submissions are encrypted in the visitor's browser with <a href="https://age-encryption.org">age</a> and this server stores only ciphertext: spam rules, search, the confirmation email and field values in notifications, chat and exports stop; bot checks, hooks and retention go on. Not with files.</p>
  <% } %>
  <% if (!sealed) { %><details id="sealed-setup"<%= Object.keys(se).length > 0 ? ' open' : '' %>><summary>Seal this form: make or paste a key</summary><% } %>
  <%~ include('@sealedKeyMaker', { fillId: 'sealed-recipient' }) %><script src="/dashboard/assets/sealed.js" defer></script>
  <form method="post" action="/dashboard/forms/<%= it.form.id %>/sealed/add" class="stack" id="sealed-add" novalidate>
    <input type="hidden" name="_csrf" value="<%= it.csrf %>">
    <label>Recipient (an age public key, <code>age1…</code>, as <code>age-keygen</code> prints it) <input name="recipient" id="sealed-recipient" maxlength="100" autocomplete="off" spellcheck="false" value="<%= sv.recipient || '' %>" aria-describedby="sealed-recipient-error"></label>
    <% if (se.recipient) { %><p class="field-error" id="sealed-recipient-error"><%= se.recipient %></p><% } %>
    <label>Label (optional: whose key it is) <input name="label" maxlength="100" value="<%= sv.label || '' %>" aria-describedby="sealed-label-error"></label>
    <% if (se.label) { %><p class="field-error" id="sealed-label-error"><%= se.label %></p><% } %>
    <button class="primary"><%= sealed ? 'Add recipient' : 'Seal this form' %></button>
  </form>
  <% if (!sealed) { %></details><% } %>
  <% if (sealed) { %><form method="post" action="/dashboard/forms/<%= it.form.id %>/sealed/unseal" id="sealed-unseal">
    <input type="hidden" name="_csrf" value="<%= it.csrf %>">
    <button class="danger">Stop sealing new submissions</button>
  </form><% } %>
</section>`,
};
