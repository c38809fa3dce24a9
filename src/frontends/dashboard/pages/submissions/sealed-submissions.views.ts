/**
 * The sealed-form tools the dashboard runs in the browser (/dashboard/assets/sealed.js): the
 * controls have no `name` and sit in no form, so nothing typed or chosen in them is ever posted.
 */
export const sealedSubmissionViews: Record<string, string> = {
  // On a list or a submission holding sealed submissions: open them with the key, then search and export.
  sealedOpener: `<section class="card" id="seal-opener" data-name="<%= it.form.name %>" aria-labelledby="seal-heading">
<h2 id="seal-heading">Sealed submissions</h2>
<p class="muted">Sealed fields are decrypted here, in this browser, with your key: the key and the fields never reach the server.</p>
<div class="row">
  <label>Key file (key.txt) <input type="file" id="seal-key-file" accept=".txt,text/plain"></label>
  <span id="seal-stored" class="row" hidden><label>Passphrase <input type="password" id="seal-passphrase" autocomplete="current-password"></label>
  <button type="button" id="seal-use-stored">Use the key kept in this browser</button></span>
</div>
<p id="seal-status" role="status" aria-live="polite"></p>
<div class="row search" id="seal-tools" hidden>
  <label class="grow">Search the decrypted fields <input type="search" id="seal-search"></label>
  <button type="button" id="seal-export">Export CSV (decrypted)</button>
</div>
<details class="variant"><summary>No key yet? Make one</summary>
<p class="muted">Send its public key to whoever manages the form: they add it as a recipient, and what is sealed from then on opens with your key too.</p>
<%~ include('@sealedKeyMaker', { fillId: '' }) %>
</details>
</section>
<script src="/dashboard/assets/sealed.js" defer></script>`,

  // Makes an identity in the browser; fills the input whose id is data-fill (the settings' recipient to add).
  sealedKeyMaker: `<div id="seal-keymaker" data-fill="<%= it.fillId %>">
<p><button type="button" id="seal-make-key">Make a key</button> <span class="muted">An age key pair made in this browser: the secret key never reaches the server.</span></p>
<div id="seal-new-key" hidden>
  <p>Public key (the recipient to add): <code id="seal-new-recipient" class="wrap"></code></p>
  <p><a class="button primary" id="seal-key-download" download="key.txt" href="#">Download key.txt</a> <span class="muted">Keep it safe: it is the only way to read what is sealed to it (<code>age -d -i key.txt</code> reads exports too).</span></p>
  <div class="row"><label class="grow">Passphrase to keep it in this browser <input type="password" id="seal-keep-passphrase" autocomplete="new-password" minlength="8"></label>
  <button type="button" id="seal-keep">Keep in this browser</button></div>
</div>
<p id="seal-keymaker-status" role="status" aria-live="polite"></p>
</div>`,
};
