import { escapeHtml } from '../../../platform/lib/html.js';
import { oneLine } from '../../../platform/lib/template.js';
import type { ComposedEmail } from './emails.js';

/** At most this many submissions are linked one by one; the rest are on the list the email links. */
export const ASSIGNMENT_LINKS_LISTED = 10;

export interface AssignmentForEmail {
  /** Who assigned them (an email: a member of the team). */
  by: string;
  /** The submissions given to the recipient, each with its form. */
  submissions: Array<{ id: string; formId: string; formName: string }>;
}

/**
 * To a member who was assigned submissions by someone else: which, by whom, with a link to each
 * (and to the form's list of what is theirs). No field values: the dashboard shows them to a
 * signed-in member, where an email would carry them to wherever it is forwarded.
 */
export function composeAssignmentEmail(a: AssignmentForEmail, baseUrl: string): ComposedEmail {
  const n = a.submissions.length;
  const forms = [...new Map(a.submissions.map((s) => [s.formId, s.formName])).entries()];
  const formWords = forms.length === 1 ? `of the form “${forms[0]![1]}”` : `of ${forms.length} forms`;
  const what = n === 1 ? `a submission ${formWords}` : `${n.toLocaleString('en')} submissions ${formWords}`;
  const links = a.submissions.slice(0, ASSIGNMENT_LINKS_LISTED).map((s) => ({ url: `${baseUrl}/dashboard/submissions/${s.id}`, form: s.formName }));
  const rest = n - links.length;
  const mine = forms.length === 1 ? `${baseUrl}/dashboard/forms/${forms[0]![0]}/submissions?assignee=me` : `${baseUrl}/dashboard/forms`;
  const restText = rest > 0 ? `\n… and ${rest.toLocaleString('en')} more: ${mine}` : '';
  const formPart = forms.length === 1 ? ` (${oneLine(forms[0]![1])})` : '';
  return {
    subject: n === 1 ? `Assigned to you: a submission${formPart}` : `Assigned to you: ${n.toLocaleString('en')} submissions${formPart}`,
    text: `${a.by} assigned you ${what} on Formgate.\n\n${links.map((l) => `${l.form}: ${l.url}`).join('\n')}${restText}\n\nEverything assigned to you: ${mine}\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif"><p>${escapeHtml(a.by)} assigned you ${escapeHtml(what)} on Formgate.</p><ul>${links
      .map((l) => `<li><a href="${escapeHtml(l.url)}">Open the submission</a> (${escapeHtml(l.form)})</li>`)
      .join('')}</ul>${rest > 0 ? `<p>… and ${rest.toLocaleString('en')} more.</p>` : ''}<p><a href="${escapeHtml(mine)}">Everything assigned to you</a></p></body></html>`,
  };
}
