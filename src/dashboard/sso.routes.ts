import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { SSO_CALLBACK_PATH } from '../sso/sso.service.js';
import type { PendingSignIn } from '../sso/oidc.client.js';
import type { SsoFailureReason } from '../sso/sso.types.js';
import { pageContext, sendPage } from './page.js';
import { startDashboardSession, startingAccountOf } from './session-cookie.js';

/** Holds state, nonce and PKCE verifier from the redirect to the provider until it sends the browser back. */
const PENDING_COOKIE = 'fg_oidc';
const PENDING_COOKIE_PATH = '/dashboard/auth/oidc';
/** Long enough to type a password and a second factor at the provider. */
const PENDING_MAX_AGE_SECONDS = 600;

/** The failure page's sentence for each reason; the details go to the log only. */
const FAILURE_TEXT: Record<SsoFailureReason, [status: number, text: string]> = {
  expired: [400, 'This sign-in was started too long ago, or in another browser. Start it again.'],
  state_mismatch: [400, 'The answer from the sign-in provider does not belong to the sign-in this browser started. Start it again.'],
  cancelled: [401, 'The sign-in was cancelled at the provider.'],
  provider_error: [502, 'The sign-in provider refused the sign-in. Ask your administrator if this goes on.'],
  provider_unreachable: [502, 'The sign-in provider could not be reached. Try again in a moment.'],
  code_rejected: [400, 'The sign-in provider did not accept this sign-in (it may have been used already). Start it again.'],
  id_token_invalid: [502, 'The sign-in provider’s answer did not pass the checks (issuer, audience, signature, expiry or nonce), so nobody was signed in.'],
  no_email: [403, 'The sign-in provider did not share your email address, which Formgate needs to find your account.'],
  email_unverified: [403, 'Your email address is not verified at the sign-in provider, so it cannot be linked to an account here. Verify it there, then try again.'],
  signup_closed: [403, 'There is no account for this email address on this server, and sign-up is closed. Ask the operator for an account.'],
  disabled: [403, 'This account is disabled. Ask this instance’s admin to enable it.'],
  no_account: [403, 'You are not a member of any account on this server any more. Ask an account’s owner for an invitation.'],
};

function decodePending(raw: string | undefined): PendingSignIn | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<PendingSignIn>;
    const fields = [value.state, value.nonce, value.codeVerifier];
    return fields.every((field) => typeof field === 'string' && field.length > 0 && field.length <= 200) ? (value as PendingSignIn) : undefined;
  } catch {
    return undefined;
  }
}

/** Sign-in through the operator's OpenID Connect provider (contract section 17). */
export async function ssoPages(app: FastifyInstance): Promise<void> {
  const secure = app.config.baseUrl.startsWith('https:');

  function sendFailure(request: FastifyRequest, reply: FastifyReply, reason: SsoFailureReason): FastifyReply {
    const [status, text] = FAILURE_TEXT[reason];
    return sendPage(reply, 'ssoFailed', pageContext(request, reply, 'Single sign-on did not work'), { reason: text, passwordLogin: app.config.passwordLogin }, status);
  }

  app.addHook('onRequest', async () => {
    if (!app.services.sso.enabled) throw new AppError('not_found', 'Single sign-on is not set up on this server.');
  });

  app.get('/dashboard/auth/oidc', { schema: { hide: true } }, async (request, reply) => {
    let begun: Awaited<ReturnType<typeof app.services.sso.beginSignIn>>;
    try {
      begun = await app.services.sso.beginSignIn();
    } catch (err) {
      request.log.warn({ err }, 'single sign-on could not start');
      return sendFailure(request, reply, 'provider_unreachable');
    }
    reply.setCookie(PENDING_COOKIE, Buffer.from(JSON.stringify(begun.pending)).toString('base64url'), {
      path: PENDING_COOKIE_PATH,
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level GET from another site.
      sameSite: 'lax',
      secure,
      maxAge: PENDING_MAX_AGE_SECONDS,
    });
    return reply.redirect(begun.url, 303);
  });

  app.get(SSO_CALLBACK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const pending = decodePending(request.cookies[PENDING_COOKIE]);
    // Single use: a reload or a replayed answer starts from nothing.
    reply.clearCookie(PENDING_COOKIE, { path: PENDING_COOKIE_PATH });
    if (!pending) return sendFailure(request, reply, 'expired');
    const result = await app.services.sso.finishSignIn(new URL(request.url, app.config.baseUrl), pending);
    if (!result.ok) {
      request.log.warn({ reason: result.reason, detail: result.detail }, 'single sign-on refused');
      return sendFailure(request, reply, result.reason);
    }
    const accountId = await startingAccountOf(app, result.user.id);
    const account = accountId ? await app.services.accounts.findAccount(accountId) : undefined;
    if (!account) return sendFailure(request, reply, 'no_account');
    if (account.disabled) return sendFailure(request, reply, 'disabled');
    return startDashboardSession(app, request, reply, result.user, account.id, 'sso');
  });
}
