import { isSealedPayload } from '../../platform/lib/age.js';
import type { FastifyInstance } from 'fastify';
import type { Form } from '../forms/form.types.js';
import { renderTemplate, submissionVariables } from '../../platform/lib/template.js';
import { thanksUsesVariables } from './redirects.js';
import { originAllowed } from './spam-rules.js';

/** How long after a submission the hosted thank-you page still fills its fields into the form's texts. */
const THANKS_VARIABLES_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * The page the visitor came from, for the hosted pages' "back to the site" link: this request's
 * Referer (the submit's own request, or after its redirect, where the browser still names the
 * page that held the form), whole as the browser sent it (a cross-origin Referer is often only
 * the origin: the page's referrer policy decides), and only an http(s) one other than
 * Formgate's own, on one of the form's allowed origins when it lists any. Derived when the page
 * is shown, so no query parameter can point the link anywhere.
 */
export function backUrl(referer: string | undefined, ownOrigin: string, form: Form | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    const url = new URL(referer);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === ownOrigin || url.username || url.password) return undefined;
    if (form && !originAllowed(form.allowedOrigins, url.origin, undefined)) return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/**
 * The form's thank-you title and message, with the submission's fields filled in when they name
 * any (`{{name}}`) and the page names a recent submission of the form; otherwise variables render
 * empty, never as written.
 */
export async function thanksTexts(app: FastifyInstance, form: Form, submissionId: string | undefined): Promise<{ title: string | null; message: string | null }> {
  if (!thanksUsesVariables(form)) return { title: form.thanksTitle, message: form.thanksMessage };
  const submission = submissionId
    ? await app.services.submissionQueries.findRecentSubmissionOfForm(form, submissionId, THANKS_VARIABLES_MAX_AGE_MS).catch(() => undefined)
    : undefined;
  // A sealed submission's fields are ciphertext: its variables render empty.
  const shown = submission && isSealedPayload(submission.payload) ? { ...submission, payload: {} } : (submission ?? { id: '', createdAt: '', payload: {} });
  const variables = submissionVariables(form.name, shown);
  const render = (text: string | null) => (text === null ? null : renderTemplate(text, variables, 'text'));
  return { title: render(form.thanksTitle), message: render(form.thanksMessage) };
}
