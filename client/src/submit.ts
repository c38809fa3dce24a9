import { text } from './messages.js';

/** A submit error: the server's error code (docs/api.md) or `network_error` / `offline`. */
export interface SubmitError {
  code: string;
  /** Text for the person filling in the form. */
  message: string;
  /** Field name → message, as the server sent them (empty when none). */
  fieldErrors: Record<string, string>;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** Seconds from the server's Retry-After, on `rate_limited`. */
  retryAfterSeconds?: number;
}

export type SubmitOutcome =
  | { ok: true; submissionId: string; cached: boolean }
  | { ok: false; error: SubmitError };

/** A flat JSON body: the values the submit endpoint stores as given. */
export type JsonFields = Record<string, string | number | boolean | null | Array<string | number | boolean | null>>;

export type SubmitBody = FormData | URLSearchParams | JsonFields;

/** A new random key (128 bits); getRandomValues works on plain-http pages too, unlike randomUUID. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let key = 'fg_';
  for (let i = 0; i < bytes.length; i++) key += (bytes[i]! + 256).toString(16).slice(1);
  return key;
}

/**
 * What the browser itself would send: multipart when the form says so or holds a chosen file,
 * else urlencoded (file inputs then send their file name, as a native post does).
 */
export function formBody(data: FormData, multipart = false): FormData | URLSearchParams {
  const params = new URLSearchParams();
  let hasFile = false;
  data.forEach((value, name) => {
    if (typeof value === 'string') params.append(name, value);
    else {
      if (value.size > 0 || value.name) hasFile = true;
      params.append(name, value.name);
    }
  });
  return multipart || hasFile ? data : params;
}

const failure = (code: string, message: string, extra: Partial<SubmitError> = {}): SubmitOutcome => ({
  ok: false,
  error: { code, message, fieldErrors: {}, ...extra },
});

const offline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

/**
 * One POST to a submit URL in JSON mode. Never throws: every way it can end (an answer, a
 * refused connection, no network at all) comes back as an outcome with a text to show, in
 * `language` (see languageOf) where the text is the script's own; the server's messages come
 * in the language it chose for the submission.
 */
export async function postSubmission(
  url: string,
  body: SubmitBody,
  idempotencyKey: string,
  signal?: AbortSignal,
  language = 'en',
  onProgress?: (fraction: number) => void,
): Promise<SubmitOutcome> {
  if (offline()) return failure('offline', text('offline', language));
  const headers: Record<string, string> = { Accept: 'application/json', 'Idempotency-Key': idempotencyKey };
  const isJson = !(body instanceof FormData) && !(body instanceof URLSearchParams);
  if (isJson) headers['Content-Type'] = 'application/json';
  let response: Response;
  let answer: { ok?: unknown; submissionId?: unknown; cached?: unknown; message?: unknown; fieldErrors?: unknown } | undefined;
  try {
    // fetch reports no upload progress: a large multipart body goes through XMLHttpRequest.
    response =
      onProgress && body instanceof FormData && uploadBytes(body) > PROGRESS_FROM_BYTES && typeof XMLHttpRequest !== 'undefined'
        ? await sendWithProgress(url, headers, body, onProgress, signal)
        : await fetch(url, {
            method: 'POST',
            headers,
            body: isJson ? JSON.stringify(body) : (body as FormData | URLSearchParams),
            credentials: 'omit',
            signal,
          });
    // A body cut off after a 200 is as unknown as no answer: the retry replays the same key.
    answer = await response.json().catch((err: unknown) => {
      if (response.ok) throw err;
      return undefined;
    });
  } catch (err) {
    if ((err as Error | undefined)?.name === 'AbortError') throw err;
    return offline() ? failure('offline', text('offline', language)) : failure('network_error', text('network', language));
  }
  const status = response.status;
  if (response.ok && answer?.ok === true && typeof answer.submissionId === 'string') {
    return { ok: true, submissionId: answer.submissionId, cached: answer.cached === true };
  }
  const code = typeof (answer as { error?: unknown } | undefined)?.error === 'string' ? (answer as { error: string }).error : 'internal_error';
  if (status === 429) {
    const seconds = retryAfterSeconds(response.headers.get('retry-after'));
    const wait = seconds === undefined ? text('rateLimitedSoon', language) : text('rateLimited', language).replace('{seconds}', String(seconds));
    return failure('rate_limited', wait, { status, ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }) });
  }
  if (status === 413) return failure('payload_too_large', text('tooLarge', language), { status });
  if (status >= 500 || typeof answer?.message !== 'string') return failure(code, text('server', language), { status });
  const fieldErrors: Record<string, string> = {};
  if (answer.fieldErrors && typeof answer.fieldErrors === 'object') {
    for (const [name, text] of Object.entries(answer.fieldErrors)) if (typeof text === 'string') fieldErrors[name] = text;
  }
  return failure(code, answer.message, { status, fieldErrors });
}

/** Uploads larger than this show their progress (docs/client.md). */
export const PROGRESS_FROM_BYTES = 1024 * 1024;

/** Bytes of the files a form body carries. */
export function uploadBytes(data: FormData): number {
  let bytes = 0;
  data.forEach((value) => {
    if (typeof value !== 'string') bytes += value.size;
  });
  return bytes;
}

/** The POST through XMLHttpRequest, reporting the share of the body sent; answered as a Response. */
function sendWithProgress(url: string, headers: Record<string, string>, body: FormData, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      const answerHeaders = new Headers();
      const retryAfter = xhr.getResponseHeader('retry-after');
      if (retryAfter !== null) answerHeaders.set('retry-after', retryAfter);
      resolve(new Response(xhr.status === 204 ? null : xhr.responseText, { status: xhr.status, headers: answerHeaders }));
    };
    xhr.onerror = () => reject(new TypeError('network error'));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
}

/** Retry-After is seconds or an HTTP date (RFC 9110); either becomes whole seconds from now. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

interface WidgetApi {
  reset(widget?: string | Element): void;
}

/** Calls `reset` where it exists; a widget that is not rendered (yet) has nothing to reset. */
function tryReset(reset: () => void): void {
  try {
    reset();
  } catch {
    // Nothing rendered, nothing to reset.
  }
}

/** The parts of an `<altcha-widget>` element the script uses. */
type AltchaElement = Element & { reset?: () => void; verify?: () => Promise<void>; getState?: () => string };

/**
 * Whether a try may have spent the form's ALTCHA solution: the server checks it only while
 * storing, after every refusal (4xx) it can answer. A stored submission, an error on the
 * server's side (5xx) or no answer at all may have spent it; a refusal did not.
 */
export function spentBotCheck(outcome: SubmitOutcome): boolean {
  if (outcome.ok) return true;
  const status = outcome.error.status;
  return status === undefined || status >= 500;
}

/**
 * Starts an ALTCHA widget's work now (`verify()`), as `auto="onload"` does: its challenge, and so
 * the form's minimum fill time, then counts from the page's load. Snippets copied before they
 * carried `auto` get the same from the script. A widget not defined yet is started once it is.
 */
export function startAltcha(widget: Element): void {
  const start = () => {
    const el = widget as AltchaElement;
    if (typeof el.verify !== 'function') return;
    const state = typeof el.getState === 'function' ? el.getState() : 'unverified';
    if (state === 'unverified' || state === 'expired' || state === 'error') el.verify().catch(() => undefined);
  };
  if (typeof customElements === 'undefined') return;
  if (customElements.get('altcha-widget')) start();
  else customElements.whenDefined('altcha-widget').then(start, () => undefined);
}

/**
 * Bot-check tokens are single-use: after a try that may have spent one (see spentBotCheck), the
 * form's widget gets a fresh one (a replay of the same Idempotency-Key never spends a token, so
 * the retry needs the new one). Turnstile, hCaptcha and reCAPTCHA reset through their page
 * globals after every try, as their tokens are short-lived; an ALTCHA widget keeps a solution no
 * refusal spent (a new one would be work for nothing), else resets and solves a new challenge at
 * once, which keeps the visit's start (the challenge URL carries it), so the retry is not "too
 * fast".
 */
export function resetBotCheck(form: Element, spent = true): void {
  const globals = window as { turnstile?: WidgetApi; hcaptcha?: WidgetApi; grecaptcha?: WidgetApi };
  const turnstile = form.querySelector('.cf-turnstile');
  if (turnstile && typeof globals.turnstile?.reset === 'function') tryReset(() => globals.turnstile!.reset(turnstile));
  const hcaptcha = form.querySelector('.h-captcha');
  const hcaptchaId = hcaptcha?.querySelector('iframe')?.getAttribute('data-hcaptcha-widget-id') ?? undefined;
  if (hcaptcha && typeof globals.hcaptcha?.reset === 'function') tryReset(() => globals.hcaptcha!.reset(hcaptchaId));
  if (form.querySelector('.g-recaptcha') && typeof globals.grecaptcha?.reset === 'function') tryReset(() => globals.grecaptcha!.reset());
  const altcha = form.querySelector('altcha-widget') as AltchaElement | null;
  if (altcha && spent && typeof altcha.reset === 'function') {
    tryReset(() => altcha.reset!());
    startAltcha(altcha);
  }
}
