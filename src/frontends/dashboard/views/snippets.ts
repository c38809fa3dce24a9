import type { Form } from '../../../features/forms/form.types.js';
import { isLanguage, messages, type Language } from '../../../platform/i18n/i18n.js';
import { fileInputAccept } from '../../../platform/lib/file-types.js';
import { escapeHtml as escapeAttribute } from '../../../platform/lib/html.js';

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

/** One field of the snippet: its name, its label, how it is entered and whether the form requires it. */
interface SnippetField {
  name: string;
  label: string;
  kind: 'email' | 'text' | 'textarea' | 'file';
  required: boolean;
  /** A file input's `accept` and whether it takes several files. */
  accept?: string;
  multiple?: boolean;
}

/** The form's own language when it names one; `auto` snippets are English (the page's author translates them). */
function snippetLanguage(form: Form): Language | undefined {
  return form.language !== 'auto' && isLanguage(form.language) ? form.language : undefined;
}

/** File uploads are a per-form setting (`files: store`) on instances that have it. */
function storesFiles(form: Form): boolean {
  return (form as Form & { files?: string }).files === 'store';
}

/** The snippet's file input is named so; a form that requires it makes the input required. */
const FILE_FIELD = 'attachment';

/**
 * The fields the snippet shows: email and message, then every other field the form requires
 * (named as the settings name it), then a file input when the form stores files. `required`
 * exactly where the form's settings require the field, so the browser says so before sending.
 */
function snippetFields(form: Form): SnippetField[] {
  const m = messages(snippetLanguage(form) ?? 'en');
  const required = new Set(form.requiredFields);
  const fields: SnippetField[] = [
    { name: 'email', label: m['snippet.email'], kind: 'email', required: required.has('email') },
    { name: 'message', label: m['snippet.message'], kind: 'textarea', required: required.has('message') },
  ];
  for (const name of form.requiredFields) {
    if (name === 'email' || name === 'message' || (name === FILE_FIELD && storesFiles(form))) continue;
    fields.push({ name, label: name, kind: /e-?mail/i.test(name) ? 'email' : 'text', required: true });
  }
  if (storesFiles(form)) {
    // The picker offers the types the form takes and as many files as it keeps; the server still decides.
    fields.push({
      name: FILE_FIELD,
      label: m['snippet.file'],
      kind: 'file',
      required: required.has(FILE_FIELD),
      accept: fileInputAccept(form.fileTypes ?? []),
      multiple: (form.maxFiles ?? 1) > 1,
    });
  }
  return fields;
}

function fieldHtml(field: SnippetField): string {
  const name = escapeAttribute(field.name);
  const required = `${field.accept ? ` accept="${escapeAttribute(field.accept)}"` : ''}${field.multiple ? ' multiple' : ''}${field.required ? ' required' : ''}`;
  const control =
    field.kind === 'textarea'
      ? `<textarea name="${name}"${required}></textarea>`
      : `<input type="${field.kind}" name="${name}"${required}>`;
  return `  <label>${escapeAttribute(field.label)} ${control}</label>`;
}

/**
 * The element and script of the form's bot-check widget; site keys are limited to [A-Za-z0-9_-]
 * by the settings, escaped all the same. ALTCHA solves its challenge as soon as the page loads
 * (`auto="onload"`): the visitor never waits for it, and the form's minimum fill time counts
 * from the page's load, not from the moment the box would have been ticked. `hidelogo`: the
 * widget's logo is a focusable link hidden from screen readers (axe-core: aria-hidden-focus); the
 * footer still names ALTCHA.
 */
function botCheckWidget(form: Form, altcha: AltchaUrls): { element: string; script: string } | undefined {
  switch (form.botCheck) {
    case 'altcha':
      return {
        element: `<altcha-widget challengeurl="${escapeAttribute(altcha.challenge)}" auto="onload" hidelogo></altcha-widget>`,
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
 * A copy-ready form posting to the submit URL, built from the form's settings: its required
 * fields, a file input and multipart encoding only when it stores files, the widget of its bot
 * check, its language (labels, and `lang` for the script's messages), and the honeypot. With
 * `script`, the same form marked `data-formgate` plus Formgate's script: it submits in place, and
 * still posts natively (303) where JavaScript does not run.
 */
export function formSnippet(form: Form, submitUrl: string, altcha: AltchaUrls, script?: ScriptTag): string {
  const language = snippetLanguage(form);
  const attributes = [
    `action="${escapeAttribute(submitUrl)}"`,
    'method="POST"',
    ...(storesFiles(form) ? ['enctype="multipart/form-data"'] : []),
    ...(language ? [`lang="${language}"`] : []),
    // JSON answers do not name the success URL, so the script is told where to go.
    ...(script ? ['data-formgate', ...(form.successUrl ? [`data-formgate-redirect="${escapeAttribute(form.successUrl)}"`] : [])] : []),
  ];
  const lines = [
    `<form ${attributes.join(' ')}>`,
    ...snippetFields(form).map(fieldHtml),
    '  <!-- Honeypot: leave it empty and hidden; bots fill it in. -->',
    '  <input type="text" name="_honey" style="display:none" tabindex="-1" autocomplete="off">',
  ];
  if (form.accessKey) lines.push(`  <input type="hidden" name="access_key" value="${escapeAttribute(form.accessKey)}">`);
  const widget = botCheckWidget(form, altcha);
  if (widget) lines.push(`  ${widget.element}`);
  lines.push(`  <button type="submit">${escapeAttribute(messages(language ?? 'en')['snippet.send'])}</button>`, '</form>');
  if (widget) lines.push(widget.script);
  if (script) {
    lines.push(`<script src="${escapeAttribute(script.url)}" integrity="${escapeAttribute(script.integrity)}" crossorigin="anonymous" defer></script>`);
  }
  return lines.join('\n');
}

function jsxField(field: SnippetField): string[] {
  const name = JSON.stringify(field.name);
  const required = `${field.accept ? ` accept={${JSON.stringify(field.accept)}}` : ''}${field.multiple ? ' multiple' : ''}${field.required ? ' required' : ''}`;
  const control =
    field.kind === 'textarea' ? `<textarea name={${name}}${required} />` : `<input type="${field.kind}" name={${name}}${required} />`;
  // JSON.stringify makes each value a JavaScript string literal, safe inside JSX braces.
  return [`      <label>{${JSON.stringify(field.label)}} ${control}</label>`, `      {fieldErrors[${name}] && <p>{fieldErrors[${name}]}</p>}`];
}

/** The bot check's element in JSX, with where its script comes from. */
function jsxWidget(form: Form, altcha: AltchaUrls): string[] {
  switch (form.botCheck) {
    case 'altcha':
      return [
        `      {/* ALTCHA: load ${altcha.script} on the page (type="module") */}`,
        `      <altcha-widget challengeurl={${JSON.stringify(altcha.challenge)}} auto="onload" hidelogo />`,
      ];
    case 'turnstile':
      return [
        '      {/* Turnstile: load https://challenges.cloudflare.com/turnstile/v0/api.js on the page */}',
        `      <div className="cf-turnstile" data-sitekey={${JSON.stringify(form.turnstileSiteKey ?? 'YOUR_TURNSTILE_SITE_KEY')}} />`,
      ];
    case 'hcaptcha':
      return [
        '      {/* hCaptcha: load https://js.hcaptcha.com/1/api.js on the page */}',
        `      <div className="h-captcha" data-sitekey={${JSON.stringify(form.hcaptchaSiteKey ?? 'YOUR_HCAPTCHA_SITE_KEY')}} />`,
      ];
    case 'recaptcha':
      return [
        '      {/* reCAPTCHA: load https://www.google.com/recaptcha/api.js on the page */}',
        `      <div className="g-recaptcha" data-sitekey={${JSON.stringify(form.recaptchaSiteKey ?? 'YOUR_RECAPTCHA_SITE_KEY')}} />`,
      ];
    default:
      return [];
  }
}

/** The same form as a React component with useFormgate (npm package formgate-client). */
export function reactSnippet(form: Form, baseUrl: string, altcha: AltchaUrls): string {
  const language = snippetLanguage(form);
  const formAttributes = `${storesFiles(form) ? ' encType="multipart/form-data"' : ''}${language ? ` lang="${language}"` : ''}`;
  const lines = [
    "import { useFormgate } from 'formgate-client/react';",
    '',
    'export function ContactForm() {',
    `  const { submit, state, fieldErrors } = useFormgate(${JSON.stringify(form.id)}, { baseUrl: ${JSON.stringify(baseUrl)} });`,
    "  if (state.status === 'succeeded') return <p role=\"status\">Thank you! Your message has been sent.</p>;",
    '  return (',
    `    <form onSubmit={submit}${formAttributes}>`,
    "      {state.status === 'failed' && <p role=\"alert\">{state.error.message}</p>}",
    ...snippetFields(form).flatMap(jsxField),
    "      <input type=\"text\" name=\"_honey\" style={{ display: 'none' }} tabIndex={-1} autoComplete=\"off\" />",
  ];
  if (form.accessKey) lines.push(`      <input type="hidden" name="access_key" value={${JSON.stringify(form.accessKey)}} />`);
  lines.push(...jsxWidget(form, altcha));
  lines.push(
    `      <button type="submit" disabled={state.status === 'submitting'}>{${JSON.stringify(messages(language ?? 'en')['snippet.send'])}}</button>`,
    '    </form>',
    '  );',
    '}',
  );
  return lines.join('\n');
}
