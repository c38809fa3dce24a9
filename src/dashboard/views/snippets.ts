import type { Form } from '../../forms/form.types.js';
import { escapeHtml as escapeAttribute } from '../../lib/html.js';

/** Formgate's browser script: its versioned URL and Subresource Integrity value. */
export interface ScriptTag {
  url: string;
  integrity: string;
}

/** Where a form's ALTCHA widget loads from and asks for challenges: Formgate itself. */
export interface AltchaUrls {
  script: string;
  challenge: string;
}

/** The element and script of the form's bot-check widget; site keys are limited to [A-Za-z0-9_-] by the settings, escaped all the same. */
function botCheckWidget(form: Form, altcha: AltchaUrls): { element: string; script: string } | undefined {
  switch (form.botCheck) {
    case 'altcha':
      return {
        element: `<altcha-widget challengeurl="${escapeAttribute(altcha.challenge)}"></altcha-widget>`,
        script: `<script type="module" src="${escapeAttribute(altcha.script)}" async defer></script>`,
      };
    case 'turnstile':
      return {
        element: `<div class="cf-turnstile" data-sitekey="${escapeAttribute(form.turnstileSiteKey ?? 'YOUR_TURNSTILE_SITE_KEY')}"></div>`,
        script: '<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>',
      };
    case 'hcaptcha':
      return {
        element: `<div class="h-captcha" data-sitekey="${escapeAttribute(form.hcaptchaSiteKey ?? 'YOUR_HCAPTCHA_SITE_KEY')}"></div>`,
        script: '<script src="https://js.hcaptcha.com/1/api.js" async defer></script>',
      };
    case 'recaptcha':
      return {
        element: `<div class="g-recaptcha" data-sitekey="${escapeAttribute(form.recaptchaSiteKey ?? 'YOUR_RECAPTCHA_SITE_KEY')}"></div>`,
        script: '<script src="https://www.google.com/recaptcha/api.js" async defer></script>',
      };
    default:
      return undefined;
  }
}

/**
 * A copy-ready form posting to the submit URL, with the honeypot and the widget of the form's bot
 * check. With `script`, the same form marked `data-formgate` plus Formgate's script: it submits in
 * place, and still posts natively (303) where JavaScript does not run.
 */
export function formSnippet(form: Form, submitUrl: string, altcha: AltchaUrls, script?: ScriptTag): string {
  // JSON answers do not name the success URL, so the script is told where to go.
  const enhanced = script ? ` data-formgate${form.successUrl ? ` data-formgate-redirect="${escapeAttribute(form.successUrl)}"` : ''}` : '';
  const lines = [
    `<form action="${submitUrl}" method="POST"${enhanced}>`,
    '  <label>Email <input type="email" name="email" required></label>',
    '  <label>Message <textarea name="message" required></textarea></label>',
    '  <!-- Honeypot: leave it empty and hidden; bots fill it in. -->',
    '  <input type="text" name="_honey" style="display:none" tabindex="-1" autocomplete="off">',
  ];
  if (form.accessKey) lines.push(`  <input type="hidden" name="access_key" value="${escapeAttribute(form.accessKey)}">`);
  const widget = botCheckWidget(form, altcha);
  if (widget) lines.push(`  ${widget.element}`);
  lines.push('  <button type="submit">Send</button>', '</form>');
  if (widget) lines.push(widget.script);
  if (script) {
    lines.push(`<script src="${escapeAttribute(script.url)}" integrity="${escapeAttribute(script.integrity)}" crossorigin="anonymous" defer></script>`);
  }
  return lines.join('\n');
}

/** The same form as a React component with useFormgate (npm package formgate-client). */
export function reactSnippet(form: Form, baseUrl: string): string {
  // JSON.stringify makes each value a JavaScript string literal, safe inside JSX braces.
  const lines = [
    "import { useFormgate } from 'formgate-client/react';",
    '',
    'export function ContactForm() {',
    `  const { submit, state, fieldErrors } = useFormgate(${JSON.stringify(form.id)}, { baseUrl: ${JSON.stringify(baseUrl)} });`,
    "  if (state.status === 'succeeded') return <p role=\"status\">Thank you! Your message has been sent.</p>;",
    '  return (',
    '    <form onSubmit={submit}>',
    "      {state.status === 'failed' && <p role=\"alert\">{state.error.message}</p>}",
    '      <label>Email <input type="email" name="email" required /></label>',
    '      {fieldErrors.email && <p>{fieldErrors.email}</p>}',
    '      <label>Message <textarea name="message" required /></label>',
    '      {fieldErrors.message && <p>{fieldErrors.message}</p>}',
    "      <input type=\"text\" name=\"_honey\" style={{ display: 'none' }} tabIndex={-1} autoComplete=\"off\" />",
  ];
  if (form.accessKey) lines.push(`      <input type="hidden" name="access_key" value={${JSON.stringify(form.accessKey)}} />`);
  if (form.botCheck === 'turnstile') {
    lines.push(
      "      {/* Turnstile: load https://challenges.cloudflare.com/turnstile/v0/api.js on the page */}",
      `      <div className="cf-turnstile" data-sitekey={${JSON.stringify(form.turnstileSiteKey ?? 'YOUR_TURNSTILE_SITE_KEY')}} />`,
    );
  }
  lines.push("      <button type=\"submit\" disabled={state.status === 'submitting'}>Send</button>", '    </form>', '  );', '}');
  return lines.join('\n');
}
