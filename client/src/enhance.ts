import { languageOf, text } from './messages.js';
import {
  formBody,
  newIdempotencyKey,
  postSubmission,
  resetBotCheck,
  spentBotCheck,
  startAltcha,
  type SubmitBody,
  type SubmitError,
  type SubmitOutcome,
} from './submit.js';
import type { Sealer } from './seal.js';

/** The sealing chunk's file name (beside the script) and SRI value, written in by the build. */
declare const __FORMGATE_SEAL_CHUNK__: { file: string; integrity: string };

interface FormState {
  sending: boolean;
  /** Kept until a success: a retry after a lost answer replays the attempt instead of storing it twice. */
  key: string | undefined;
  /** What to undo before the next try: error elements and the fields' original ARIA attributes. */
  undo: Array<() => void>;
}

const states = new WeakMap<HTMLFormElement, FormState>();
let sealer: Promise<Sealer> | undefined;
/** Where the script was loaded from: the sealing chunk is served beside it. */
let scriptUrl: string | undefined;

/** Tells the script its own URL (browser.ts, from document.currentScript). */
export function setScriptUrl(url: string | undefined): void {
  scriptUrl = url;
}

/**
 * Loads the sealing chunk once, by a script element pinned to the chunk's bytes (integrity):
 * a page without a sealed form never downloads it. Beside the script, else on the origin of
 * the form's submit URL.
 */
function loadSealer(doc: Document, submitUrl: string): Promise<Sealer> {
  const global = window as unknown as { FormgateSeal?: Sealer };
  if (global.FormgateSeal) return Promise.resolve(global.FormgateSeal);
  if (sealer) return sealer;
  const loading = new Promise<Sealer>((resolve, reject) => {
    const script = doc.createElement('script');
    script.src = new URL(__FORMGATE_SEAL_CHUNK__.file, scriptUrl || new URL('/v1/', submitUrl)).href;
    script.integrity = __FORMGATE_SEAL_CHUNK__.integrity;
    script.crossOrigin = 'anonymous';
    script.async = true;
    script.onload = () => (global.FormgateSeal ? resolve(global.FormgateSeal) : reject(new Error('no sealer')));
    script.onerror = () => reject(new Error('The sealing code did not load.'));
    doc.head.appendChild(script);
  });
  // A failed load is tried again at the next submit.
  loading.catch(() => {
    if (sealer === loading) sealer = undefined;
  });
  return (sealer = loading);
}

const enhanced = new WeakSet<Document>();
let errorIds = 0;

function stateOf(form: HTMLFormElement): FormState {
  let state = states.get(form);
  if (!state) states.set(form, (state = { sending: false, key: undefined, undo: [] }));
  return state;
}

/**
 * Makes every `<form data-formgate>` of the document (now and added later) submit in place.
 * Without this (no JavaScript, script blocked) the same forms post natively and get the 303.
 */
export function enhance(doc: Document = document): void {
  if (enhanced.has(doc)) return;
  enhanced.add(doc);
  doc.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-formgate') || event.defaultPrevented) return;
    event.preventDefault();
    void send(form, (event as Event & { submitter?: HTMLElement | null }).submitter ?? null);
  });
  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => loadBotCheck(doc));
  else loadBotCheck(doc);
}

/**
 * Starts every ALTCHA widget of a Formgate form that has no `auto` of its own, and loads
 * Turnstile's script when a Formgate form holds a widget and the page did not load it.
 */
function loadBotCheck(doc: Document): void {
  // Sealing ready before the visitor presses send.
  const sealed = doc.querySelector<HTMLFormElement>('form[data-formgate][data-formgate-seal]');
  if (sealed) loadSealer(doc, submitUrlOf(sealed)).catch(() => undefined);
  const widgets = doc.querySelectorAll('form[data-formgate] altcha-widget:not([auto])');
  for (let i = 0; i < widgets.length; i++) startAltcha(widgets[i]!);
  if (!doc.querySelector('form[data-formgate] .cf-turnstile') || (window as { turnstile?: unknown }).turnstile) return;
  if (doc.querySelector('script[src*="challenges.cloudflare.com/turnstile"]')) return;
  const script = doc.createElement('script');
  script.src = 'https://challenges.cloudflare.com/turnstile/v0/api.js';
  script.async = script.defer = true;
  doc.head.appendChild(script);
}

/** Submits one form in place; a second submit while one is in flight is ignored (double click). */
export async function send(form: HTMLFormElement, submitter: HTMLElement | null = null): Promise<SubmitOutcome | undefined> {
  const state = stateOf(form);
  if (state.sending) return undefined;
  state.sending = true;
  const language = languageOf(form);
  const status = statusRegion(form);
  clearErrors(state);
  const restoreButtons = disableButtons(form);
  form.setAttribute('aria-busy', 'true');
  show(status, 'sending', text('sending', language));

  const data = new FormData(form);
  const button = submitter as HTMLButtonElement | null;
  if (button && button.name) data.append(button.name, button.value);
  const multipart = (form.getAttribute('enctype') || '').toLowerCase() === 'multipart/form-data';
  const url = submitUrlOf(form);
  const key = state.key || (state.key = newIdempotencyKey());
  let outcome: SubmitOutcome | undefined;
  let sent = true;
  try {
    // Uploads over 1 MB say how far they are, in steps of 10% (the region is read out).
    let shown = -1;
    const progress = (fraction: number) => {
      const percent = Math.floor(fraction * 10) * 10;
      if (percent === shown) return;
      shown = percent;
      status.setAttribute('data-progress', String(percent));
      show(status, 'sending', `${text('sending', language)} ${percent}%`);
    };
    let body: SubmitBody | undefined = formBody(data, multipart);
    if (form.hasAttribute('data-formgate-seal')) {
      // Never in clear: a form that cannot be sealed is not sent at all.
      const recipients = (form.getAttribute('data-formgate-seal') || '').split(/\s+/).filter(Boolean);
      body = await loadSealer(form.ownerDocument, url).then((s) => s.sealedBody(data, recipients)).catch(() => undefined);
    }
    sent = body !== undefined;
    outcome = body ? await postSubmission(url, body, key, undefined, language, progress) : { ok: false, error: { code: 'seal_failed', message: text('sealFailed', language), fieldErrors: {} } };
  } finally {
    state.sending = false;
    restoreButtons();
    form.removeAttribute('aria-busy');
    // After a success the form's reset (below) clears an ALTCHA widget; the form is done. Nothing
    // sent (sealing failed) spent nothing.
    resetBotCheck(form, !outcome || (sent && !outcome.ok && spentBotCheck(outcome)));
  }

  if (outcome.ok) {
    state.key = undefined;
    form.dispatchEvent(new CustomEvent('formgate:success', { detail: outcome }));
    const next = successUrl(form);
    if (next) {
      window.location.assign(next);
      return outcome;
    }
    HTMLFormElement.prototype.reset.call(form);
    form.setAttribute('hidden', '');
    show(status, 'success', form.getAttribute('data-formgate-success') || text('success', language));
    // The form (and the button that had the focus) is hidden: the focus goes to the message, read out.
    focusRegion(status);
  } else {
    showError(form, state, status, outcome.error);
    form.dispatchEvent(new CustomEvent('formgate:error', { detail: outcome }));
  }
  return outcome;
}

/** The form's submit URL; getAttribute, not form.action: a field named "action" would shadow it. */
function submitUrlOf(form: HTMLFormElement): string {
  return new URL(form.getAttribute('action') || '', form.ownerDocument.baseURI).href;
}

/** `data-formgate-redirect`: where to go after success (JSON answers do not name the form's success URL). */
function successUrl(form: HTMLFormElement): string | undefined {
  const value = form.getAttribute('data-formgate-redirect');
  if (!value) return undefined;
  const url = new URL(value, form.ownerDocument.baseURI);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
}

/** The page's own `[data-formgate-status]` inside the form, else one made just above the form. */
function statusRegion(form: HTMLFormElement): HTMLElement {
  const own = form.querySelector<HTMLElement>('[data-formgate-status]');
  const previous = form.previousElementSibling as HTMLElement | null;
  if (own) return own;
  if (previous && previous.hasAttribute('data-formgate-status')) return previous;
  const region = form.ownerDocument.createElement('div');
  region.setAttribute('data-formgate-status', '');
  region.className = 'formgate-status';
  region.setAttribute('role', 'status');
  region.setAttribute('aria-live', 'polite');
  region.setAttribute('aria-atomic', 'true');
  form.parentNode!.insertBefore(region, form);
  return region;
}

function show(region: HTMLElement, kind: 'sending' | 'success' | 'error', message: string): void {
  region.setAttribute('data-state', kind);
  region.textContent = message;
}

/** Makes the status region focusable (not tabbable) and moves the focus to it. */
function focusRegion(region: HTMLElement): void {
  if (!region.hasAttribute('tabindex')) region.setAttribute('tabindex', '-1');
  region.focus();
}

function disableButtons(form: HTMLFormElement): () => void {
  const buttons = Array.prototype.filter.call(
    form.querySelectorAll('button, input[type=submit], input[type=image]'),
    (b: HTMLButtonElement) => b.type === 'submit' && !b.disabled,
  ) as HTMLButtonElement[];
  for (const b of buttons) b.disabled = true;
  return () => {
    for (const b of buttons) b.disabled = false;
  };
}

function clearErrors(state: FormState): void {
  for (const undo of state.undo.splice(0)) undo();
}

/**
 * The field a server error names. Over-long names come back cut to 64 characters plus "…"
 * (docs/api.md, Limits), so such a key matches the field it is the start of.
 */
function fieldNamed(form: HTMLFormElement, name: string): HTMLElement[] {
  let item = form.elements.namedItem(name);
  if (!item && name.length > 1 && name.charAt(name.length - 1) === '…') {
    const start = name.slice(0, -1);
    const found = Array.prototype.find.call(form.elements, (el: HTMLInputElement) => el.name && el.name.indexOf(start) === 0) as HTMLInputElement | undefined;
    item = found ? form.elements.namedItem(found.name) : null;
  }
  if (!item) return [];
  return item instanceof Element ? [item as HTMLElement] : (Array.prototype.slice.call(item) as HTMLElement[]);
}

function showError(form: HTMLFormElement, state: FormState, status: HTMLElement, error: SubmitError): void {
  const doc = form.ownerDocument;
  const unplaced: string[] = [];
  let first: HTMLElement | undefined;
  for (const name of Object.keys(error.fieldErrors)) {
    const text = error.fieldErrors[name]!;
    const fields = fieldNamed(form, name);
    if (fields.length === 0 || fields[0]!.getAttribute('type') === 'hidden') {
      unplaced.push(`${name}: ${text}`);
      continue;
    }
    const note = doc.createElement('p');
    note.id = `formgate-error-${++errorIds}`;
    note.className = 'formgate-field-error';
    note.textContent = text;
    // After the field's label when it wraps the field: a <p> inside a <label> is not allowed.
    const last = fields[fields.length - 1]!;
    const anchor = (last.closest('label') as HTMLElement | null) || last;
    anchor.parentNode!.insertBefore(note, anchor.nextSibling);
    state.undo.push(() => note.parentNode && note.parentNode.removeChild(note));
    for (const field of fields) {
      const invalid = field.getAttribute('aria-invalid');
      const described = field.getAttribute('aria-describedby');
      field.setAttribute('aria-invalid', 'true');
      field.setAttribute('aria-describedby', described ? `${described} ${note.id}` : note.id);
      state.undo.push(() => {
        restore(field, 'aria-invalid', invalid);
        restore(field, 'aria-describedby', described);
      });
    }
    first = first || fields[0];
  }
  show(status, 'error', unplaced.length > 0 ? `${error.message} ${unplaced.join('; ')}` : error.message);
  // The first field to correct, or else the message saying what went wrong: never the page's body.
  if (first) first.focus();
  else focusRegion(status);
}

function restore(el: Element, name: string, value: string | null): void {
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}
