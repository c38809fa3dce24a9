import { z } from 'zod';
import { formatBytes, isFileValue } from '../../../platform/lib/file-links.js';
import { isSealedPayload } from '../../../platform/lib/age.js';
import { escapeHtml } from '../../../platform/lib/html.js';
import { oneLine, renderTemplate, submissionVariables, valueText } from '../../../platform/lib/template.js';
import { countryInWords } from '../../../platform/lib/text.js';
import { formatTimeInWords, UTC } from '../../../platform/lib/time-zone.js';

export interface ComposedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface SubmissionForEmail {
  id: string;
  createdAt: string;
  country: string;
  payload: Record<string, unknown>;
}

const singleAddress = z.email().max(254);

/** The submission's `email` field when it is exactly one valid address (no CR/LF, no list). */
export function replyToOf(payload: Record<string, unknown>): string | undefined {
  const value = payload.email;
  if (typeof value !== 'string' || /[\r\n]/.test(value)) return undefined;
  const parsed = singleAddress.safeParse(value.trim());
  return parsed.success ? parsed.data : undefined;
}

/** A sealed submission's ciphertext is not shown: only that it arrived (docs/sealed-forms.md). */
const SEALED_LINE: [string, string] = ['sealed', 'a sealed submission arrived: its fields are encrypted, open it on the dashboard to read it'];

function fieldLines(payload: Record<string, unknown>): Array<[string, string]> {
  if (isSealedPayload(payload)) return [SEALED_LINE];
  return Object.entries(payload).map(([name, value]) => [name, valueText(value)]);
}

/** What a subject template may name of the submission: nothing of a sealed one's fields. */
const subjectFields = (s: SubmissionForEmail): SubmissionForEmail => (isSealedPayload(s.payload) ? { ...s, payload: {} } : s);

const submissionLink = (baseUrl: string, submissionId: string) => `${baseUrl}/dashboard/submissions/${submissionId}`;

/** Times as everywhere a person reads them (formatTime): in the form's account's zone, named. */
const inWords = (zone: string, iso: string) => formatTimeInWords(zone, iso);

function submissionText(s: SubmissionForEmail, baseUrl: string, zone: string): string {
  const lines = fieldLines(s.payload).map(([name, value]) => `${name}: ${value}`);
  return [...lines, '', `time: ${inWords(zone, s.createdAt)}`, `country: ${countryInWords(s.country)}`, `view: ${submissionLink(baseUrl, s.id)}`].join('\n');
}

/** A field's value as HTML: escaped text, and each file a link (its name) with its size, when it has one. */
function valueHtml(value: unknown): string {
  if (Array.isArray(value) && value.some(isFileValue)) return value.map(valueHtml).join(', ');
  if (!isFileValue(value)) return escapeHtml(valueText(value));
  const { name, size, url } = value.file;
  const label = `${escapeHtml(name)} (${escapeHtml(formatBytes(size))})`;
  return url ? `<a href="${escapeHtml(url)}">${label}</a>` : label;
}

function submissionHtml(s: SubmissionForEmail, baseUrl: string, zone: string): string {
  const entries: Array<[string, unknown]> = isSealedPayload(s.payload) ? [SEALED_LINE] : Object.entries(s.payload);
  const rows = entries
    .map(([name, value]) => `<tr><th align="left" valign="top">${escapeHtml(name)}</th><td style="white-space:pre-wrap">${valueHtml(value)}</td></tr>`)
    .join('\n');
  const link = escapeHtml(submissionLink(baseUrl, s.id));
  return `<table cellpadding="4">\n${rows}\n<tr><th align="left">time</th><td>${escapeHtml(inWords(zone, s.createdAt))}</td></tr>\n<tr><th align="left">country</th><td>${escapeHtml(countryInWords(s.country))}</td></tr>\n</table>\n<p><a href="${link}">View this submission on the dashboard</a></p>`;
}

const page = (body: string) => `<!doctype html><html><body style="font-family:system-ui,sans-serif">${body}</body></html>`;

const sealedWord = (s: SubmissionForEmail) => (isSealedPayload(s.payload) ? 'sealed ' : '');

export const DEFAULT_NOTIFY_SUBJECT_TEMPLATE = 'New submission: {{form.name}}';

/** The owner's email for one submission (docs/email.md, the message); the subject is the form's template. */
export function composeSubmissionEmail(formName: string, subjectTemplate: string | null, s: SubmissionForEmail, baseUrl: string, zone: string = UTC): ComposedEmail {
  return {
    subject: renderTemplate(subjectTemplate ?? DEFAULT_NOTIFY_SUBJECT_TEMPLATE, submissionVariables(formName, subjectFields(s)), 'subject'),
    text: `New ${sealedWord(s)}submission to ${formName}\n\n${submissionText(s, baseUrl, zone)}\n`,
    html: page(`<h2>New ${sealedWord(s)}submission to ${escapeHtml(formName)}</h2>\n${submissionHtml(s, baseUrl, zone)}`),
  };
}

export const DIGEST_MAX_IN_FULL = 50;

/** A digest: the period's count, and the first DIGEST_MAX_IN_FULL submissions in full. */
export function composeDigestEmail(
  formName: string,
  period: { start: string; end: string; label: string },
  total: number,
  submissions: SubmissionForEmail[],
  baseUrl: string,
  zone: string = UTC,
): ComposedEmail {
  const more = total - submissions.length;
  const intro = `${total} new submission${total === 1 ? '' : 's'} to ${formName} between ${inWords(zone, period.start)} and ${inWords(zone, period.end)}.`;
  const moreText = more > 0 ? `\n\n… and ${more} more on the dashboard: ${baseUrl}/dashboard` : '';
  return {
    subject: `${period.label} digest: ${total} new submission${total === 1 ? '' : 's'} to ${oneLine(formName)}`,
    text: `${intro}\n\n${submissions.map((s) => submissionText(s, baseUrl, zone)).join('\n\n----\n\n')}${moreText}\n`,
    html: page(
      `<h2>${escapeHtml(intro)}</h2>\n${submissions.map((s) => submissionHtml(s, baseUrl, zone)).join('\n<hr>\n')}${
        more > 0 ? `\n<p>… and ${more} more on <a href="${escapeHtml(baseUrl)}/dashboard">the dashboard</a>.</p>` : ''
      }`,
    ),
  };
}

export function composeVerificationEmail(formName: string, link: string): ComposedEmail {
  return {
    subject: `Confirm notifications for ${oneLine(formName)}`,
    text: `This address was added to receive submissions of the form "${formName}" on Formgate.\n\nOpen this link to confirm: ${link}\n\nIf you did not expect this, ignore this message: nothing more will be sent.\n`,
    html: page(
      `<p>This address was added to receive submissions of the form “${escapeHtml(formName)}” on Formgate.</p><p><a href="${escapeHtml(link)}">Confirm this address</a></p><p>If you did not expect this, ignore this message: nothing more will be sent.</p>`,
    ),
  };
}

export function composePasswordResetEmail(link: string): ComposedEmail {
  return {
    subject: 'Reset your Formgate password',
    text: `Someone (hopefully you) asked to reset the password of this Formgate account.\n\nOpen this link within an hour to choose a new one: ${link}\n\nIf it was not you, ignore this message.\n`,
    html: page(
      `<p>Someone (hopefully you) asked to reset the password of this Formgate account.</p><p><a href="${escapeHtml(link)}">Choose a new password</a> (valid for one hour).</p><p>If it was not you, ignore this message.</p>`,
    ),
  };
}

/** What an invitation's email names: the team, who invited (absent when the operator's CLI did), the role and the link. */
export interface InvitationForEmail {
  teamName: string;
  invitedBy?: { name: string; email: string } | undefined;
  role: string;
  link: string;
}

/** An invitation to join a team: who asks, to which team, as what; the link works once, for 7 days. */
export function composeInvitationEmail(invitation: InvitationForEmail): ComposedEmail {
  const { teamName, invitedBy, role, link } = invitation;
  const who = invitedBy ? `${invitedBy.name} (${invitedBy.email}) invites you` : 'You are invited';
  const whoHtml = invitedBy ? `${escapeHtml(invitedBy.name)} (${escapeHtml(invitedBy.email)}) invites you` : 'You are invited';
  return {
    subject: invitedBy ? `${oneLine(invitedBy.name)} invites you to the team ${oneLine(teamName)} on Formgate` : `You are invited to the team ${oneLine(teamName)} on Formgate`,
    text: `${who} to join the team “${teamName}” on Formgate as ${role}.\n\nOpen this link within 7 days to accept: ${link}\n\nIf you did not expect it, ignore this message.\n`,
    html: page(
      `<p>${whoHtml} to join the team “${escapeHtml(teamName)}” on Formgate as ${escapeHtml(role)}.</p><p><a href="${escapeHtml(link)}">Accept the invitation</a> (valid for 7 days, once).</p><p>If you did not expect it, ignore this message.</p>`,
    ),
  };
}

/** To the new address of an account: the change happens only when this link's page is confirmed. */
export function composeEmailChangeEmail(newEmail: string, link: string): ComposedEmail {
  return {
    subject: 'Confirm your new Formgate email',
    text: `Someone (hopefully you) asked to change the email of a Formgate account to ${newEmail}.\n\nOpen this link within 24 hours and confirm: ${link}\n\nUntil then the account keeps its old email. If it was not you, ignore this message.\n`,
    html: page(
      `<p>Someone (hopefully you) asked to change the email of a Formgate account to ${escapeHtml(newEmail)}.</p><p><a href="${escapeHtml(link)}">Confirm the new email</a> (valid for 24 hours).</p><p>Until then the account keeps its old email. If it was not you, ignore this message.</p>`,
    ),
  };
}

/** To the old address: a change was asked for, so a stranger holding the session cannot take the account quietly. */
export function composeEmailChangeNotice(newEmail: string): ComposedEmail {
  return {
    subject: 'Your Formgate email is about to change',
    text: `Someone signed in to your Formgate account asked to change its email to ${newEmail}. It changes only when that address confirms the link sent to it.\n\nIf it was not you, log in, change your password (this logs out every other session) and ask for a change back to this address.\n`,
    html: page(
      `<p>Someone signed in to your Formgate account asked to change its email to <strong>${escapeHtml(newEmail)}</strong>. It changes only when that address confirms the link sent to it.</p><p>If it was not you, log in, change your password (this logs out every other session) and ask for a change back to this address.</p>`,
    ),
  };
}

export function composeTestEmail(what: string): ComposedEmail {
  return {
    subject: 'Formgate test email',
    text: `This is a test message from Formgate (${what}). Email works.\n`,
    html: page(`<p>This is a test message from Formgate (${escapeHtml(what)}). Email works.</p>`),
  };
}
