import { escapeHtml } from '../../../platform/lib/html.js';
import type { ComposedEmail } from './emails.js';

/** What the welcome says: how this person signs in. */
export interface Welcome {
  /** The dashboard's log-in page. */
  signInUrl: string;
  /** A single-use link to choose a password, when passwords are on. */
  setPasswordLink?: string | undefined;
  /** How long the link works, in words ("7 days"). */
  linkValidFor?: string | undefined;
  /** The single sign-on button's words, when single sign-on is on. */
  singleSignOn?: string | undefined;
}

const page = (body: string) => `<!doctype html><html><body style="font-family:system-ui,sans-serif">${body}</body></html>`;

/**
 * To someone the instance's admin made an account for: a welcome, never a "reset your password"
 * (they asked for nothing). With passwords on, a link to choose theirs; with single sign-on only,
 * where to sign in and that no password is needed.
 */
export function composeWelcomeEmail(welcome: Welcome): ComposedEmail {
  const { signInUrl, setPasswordLink, linkValidFor, singleSignOn } = welcome;
  const intro = 'The administrator of this Formgate made an account for this address: Formgate collects the submissions of web forms and shows them on its dashboard.';
  const text: string[] = [intro, ''];
  const html: string[] = [`<p>${escapeHtml(intro)}</p>`];
  if (setPasswordLink) {
    text.push(`Choose your password with this link (it works once, for ${linkValidFor ?? '7 days'}): ${setPasswordLink}`, '', `Then sign in at ${signInUrl}`);
    html.push(
      `<p><a href="${escapeHtml(setPasswordLink)}">Choose your password</a> (the link works once, for ${escapeHtml(linkValidFor ?? '7 days')}).</p>`,
      `<p>Then sign in at <a href="${escapeHtml(signInUrl)}">${escapeHtml(signInUrl)}</a>.</p>`,
    );
    if (singleSignOn) {
      text.push('', `You can also sign in with “${singleSignOn}” (single sign-on).`);
      html.push(`<p>You can also sign in with “${escapeHtml(singleSignOn)}” (single sign-on).</p>`);
    }
  } else {
    const button = singleSignOn ?? 'Single sign-on';
    text.push(`Sign in with single sign-on: open ${signInUrl} and choose “${button}”. No password is needed: your organisation's sign-in is used.`);
    html.push(
      `<p>Sign in with single sign-on: open <a href="${escapeHtml(signInUrl)}">${escapeHtml(signInUrl)}</a> and choose “${escapeHtml(button)}”. No password is needed: your organisation's sign-in is used.</p>`,
    );
  }
  text.push('', 'If you did not expect this, ignore this message.');
  html.push('<p>If you did not expect this, ignore this message.</p>');
  return { subject: 'Welcome to Formgate: your account is ready', text: `${text.join('\n')}\n`, html: page(html.join('')) };
}
