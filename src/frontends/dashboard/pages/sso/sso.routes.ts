import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../platform/errors.js';
import { hashToken } from '../../../../platform/lib/token-hash.js';
import { SSO_CALLBACK_PATH } from '../../../../features/sso/sso.service.js';
import type { PendingSignIn } from '../../../../features/sso/oidc.client.js';
import type { SsoFailureReason, SsoIntent } from '../../../../features/sso/sso.types.js';
import { SESSION_COOKIE, pageContext, sendPage, setFlash } from '../../page.js';
import { landingPageOf, noticeJoined, startDashboardSession, startingAccountOf } from '../../session-cookie.js';

/** Holds state, nonce, PKCE verifier and the trip's purpose from the redirect to the provider until it sends the browser back. */
const PENDING_COOKIE = 'fg_oidc';
const PENDING_COOKIE_PATH = '/dashboard/auth/oidc';
/** Long enough to type a password and a second factor at the provider. */
const PENDING_MAX_AGE_SECONDS = 600;

type FailureText = string | ((page: { email: string; passwordLogin: boolean }) => string);

/** The failure page's sentence for each reason; the details go to the log only. */
const FAILURE_TEXT: Record<SsoFailureReason, [status: number, text: FailureText]> = {
  expired: [400, 'This sign-in was started too long ago, or in another browser. Start it again.'],
  state_mismatch: [400, 'The answer from the sign-in provider does not belong to the sign-in this browser started. Start it again.'],
  cancelled: [401, 'The sign-in was cancelled at the provider.'],
  provider_error: [502, 'The sign-in provider refused the sign-in. Ask your administrator if this goes on.'],
  provider_unreachable: [502, 'The sign-in provider could not be reached. Try again in a moment.'],
  code_rejected: [400, 'The sign-in provider did not accept this sign-in (it may have been used already). Start it again.'],
  id_token_invalid: [502, 'The sign-in provider’s answer did not pass the checks (issuer, audience, signature, expiry or nonce), so nobody was signed in.'],
  no_email: [403, 'The sign-in provider did not share your email address, which Formgate needs to find your account.'],
  email_unverified: [403, 'Your email address is not verified at the sign-in provider, so it cannot be linked to an account here. Verify it there, then try again.'],
  account_unconfirmed: [409, ({ email, passwordLogin }) =>
    `An account with the address ${email} already exists on this server, but nothing shows yet that the address belongs to whoever made it, so single sign-on does not open it. ` +
    (passwordLogin
      ? `If it is yours, log in with its password and link single sign-on on the Account page. Without the password, “Forgot password?” sends a link to ${email}: using it confirms the address, and single sign-on works from then on.`
      : 'If it is yours, ask this server’s operator for help.')],
  signup_by_invitation: [403, ({ email }) => `No account for ${email}; sign-up on this server is by invitation. Ask an account’s owner or admin to invite this address.`],
  signup_closed: [403, ({ email }) => `There is no account for ${email} on this server, and sign-up is closed. Ask the operator for an account.`],
  disabled: [403, 'This account is disabled. Ask this instance’s admin to enable it.'],
  no_account: [403, 'You are not a member of any account on this server any more. Ask an account’s owner for an invitation.'],
  identity_taken: [409, 'This sign-in at the provider is linked to another Formgate login already, so it was not linked to yours.'],
  reauth_other_identity: [403, 'That single sign-on is not one linked to your login here, so it confirms nothing. Sign on with the identity you use for this dashboard.'],
  link_signed_out: [400, 'Linking single sign-on needs the login that started it, and this browser is not signed in as it any more. Log in, then link it again on the Account page.'],
  invitation_gone: [410, 'This invitation is not waiting for you any more: it was accepted, revoked or has expired, or it is for another address than the one your sign-in provider confirmed.'],
};

/**
 * What a trip is for, as the browser keeps it. A link names the session that asked (a hash of its
 * token, unlike the session's stored ID): a cookie planted from elsewhere cannot aim another
 * person's answer from the provider at a user it merely knows the ID of.
 */
type TripIntent = Exclude<SsoIntent, { kind: 'link' | 'reauth' }> | { kind: 'link'; session: string } | { kind: 'reauth'; session: string };

/** What the browser keeps during a trip to the provider: the protocol's secrets and what the trip is for. */
interface Trip {
  pending: PendingSignIn;
  intent: TripIntent;
}

const isShortString = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200;

function decodeIntent(value: unknown): TripIntent | undefined {
  const intent = (value ?? {}) as Record<string, unknown>;
  if (intent.kind === 'sign_in') return { kind: 'sign_in' };
  if (intent.kind === 'link' && isShortString(intent.session)) return { kind: 'link', session: intent.session };
  if (intent.kind === 'reauth' && isShortString(intent.session)) return { kind: 'reauth', session: intent.session };
  if (intent.kind === 'accept' && isShortString(intent.invitationId)) return { kind: 'accept', invitationId: intent.invitationId };
  return undefined;
}

function decodeTrip(raw: string | undefined): Trip | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<PendingSignIn> & { intent?: unknown };
    const intent = decodeIntent(value.intent);
    if (!intent || ![value.state, value.nonce, value.codeVerifier].every(isShortString)) return undefined;
    return { pending: { state: value.state!, nonce: value.nonce!, codeVerifier: value.codeVerifier! }, intent };
  } catch {
    return undefined;
  }
}

const linkingSession = (sessionToken: string) => hashToken(`sso-link:${sessionToken}`);

/** The intent of a trip that links the identity to the user of this browser's session. */
export function linkIntentOf(request: FastifyRequest): TripIntent {
  return { kind: 'link', session: linkingSession(request.cookies[SESSION_COOKIE] ?? '') };
}

/** The intent of a trip on which the user of this browser's session proves themselves again. */
export function reauthIntentOf(request: FastifyRequest): TripIntent {
  return { kind: 'reauth', session: linkingSession(request.cookies[SESSION_COOKIE] ?? '') };
}

/**
 * Sends the browser to the provider for `intent`, keeping what the way back needs in a cookie;
 * a provider that cannot be reached gets the failure page.
 */
export async function startSsoTrip(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, intent: TripIntent): Promise<FastifyReply> {
  if (!app.services.sso.enabled) throw new AppError('not_found', 'Single sign-on is not set up on this server.');
  let begun: Awaited<ReturnType<typeof app.services.sso.beginSignIn>>;
  try {
    begun = await app.services.sso.beginSignIn();
  } catch (err) {
    request.log.warn({ err }, 'single sign-on could not start');
    return sendFailure(app, request, reply, 'provider_unreachable');
  }
  reply.setCookie(PENDING_COOKIE, Buffer.from(JSON.stringify({ ...begun.pending, intent })).toString('base64url'), {
    path: PENDING_COOKIE_PATH,
    httpOnly: true,
    // Lax: the provider's redirect back is a top-level GET from another site.
    sameSite: 'lax',
    secure: app.config.baseUrl.startsWith('https:'),
    maxAge: PENDING_MAX_AGE_SECONDS,
  });
  return reply.redirect(begun.url, 303);
}

function sendFailure(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, reason: SsoFailureReason, email = 'this address'): FastifyReply {
  const [status, text] = FAILURE_TEXT[reason];
  const sentence = typeof text === 'function' ? text({ email, passwordLogin: app.config.passwordLogin }) : text;
  return sendPage(reply, 'ssoFailed', pageContext(request, reply, 'Single sign-on did not work'), { reason: sentence, passwordLogin: app.config.passwordLogin }, status);
}

const acceptBody = {
  type: 'object',
  required: ['invitationId'],
  properties: { invitationId: { type: 'string', maxLength: 100 }, _csrf: { type: 'string' } },
} as const;

/**
 * Sign-in through the operator's OpenID Connect provider, and the trips that accept an
 * invitation (the person's click, proved at the provider) or link an identity (account.routes.ts).
 */
export async function ssoPages(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async () => {
    if (!app.services.sso.enabled) throw new AppError('not_found', 'Single sign-on is not set up on this server.');
  });

  app.get('/dashboard/auth/oidc', { schema: { hide: true } }, async (request, reply) => startSsoTrip(app, request, reply, { kind: 'sign_in' }));

  app.post<{ Body: { invitationId: string } }>('/dashboard/auth/oidc/accept', { schema: { hide: true, body: acceptBody } }, async (request, reply) =>
    startSsoTrip(app, request, reply, { kind: 'accept', invitationId: request.body.invitationId }),
  );

  app.get(SSO_CALLBACK_PATH, { schema: { hide: true } }, async (request, reply) => {
    const trip = decodeTrip(request.cookies[PENDING_COOKIE]);
    // Single use: a reload or a replayed answer starts from nothing.
    reply.clearCookie(PENDING_COOKIE, { path: PENDING_COOKIE_PATH });
    if (!trip) return sendFailure(app, request, reply, 'expired');
    let intent: SsoIntent;
    if (trip.intent.kind === 'link' || trip.intent.kind === 'reauth') {
      const session = request.cookies[SESSION_COOKIE];
      if (!request.user || !session || linkingSession(session) !== trip.intent.session) return sendFailure(app, request, reply, 'link_signed_out');
      intent = trip.intent.kind === 'link' ? { kind: 'link', userId: request.user.id } : { kind: 'reauth', userId: request.user.id };
    } else {
      intent = trip.intent;
    }
    const result = await app.services.sso.finishSignIn(new URL(request.url, app.config.baseUrl), trip.pending, intent);
    switch (result.kind) {
      case 'refused':
        request.log.warn({ reason: result.reason, detail: result.detail }, 'single sign-on refused');
        return sendFailure(app, request, reply, result.reason, result.email);
      case 'reauthenticated':
        await app.services.sessions.markSignedOn(request.cookies[SESSION_COOKIE]!);
        setFlash(reply, { notice: 'Confirmed at single sign-on: for the next 5 minutes you can change your email or delete the account.' }, app.config.baseUrl.startsWith('https:'));
        return reply.redirect('/dashboard/account', 303);
      case 'linked':
        setFlash(reply, { notice: 'Single sign-on is linked: you can sign in with it from now on.' }, app.config.baseUrl.startsWith('https:'));
        return reply.redirect('/dashboard/account', 303);
      case 'invitations':
        return sendPage(reply, 'invitations', pageContext(request, reply, 'Invitations'), { email: result.email, invitations: result.invitations, signedIn: false, confirmed: true });
      case 'signed_in': {
        const accountId = result.accountId ?? (await startingAccountOf(app, result.user.id));
        const account = accountId ? await app.services.accounts.findAccount(accountId) : undefined;
        if (!account) return sendFailure(app, request, reply, 'no_account');
        if (account.disabled) return sendFailure(app, request, reply, 'disabled');
        if (intent.kind === 'accept' && result.accountId) await noticeJoined(app, reply, result.accountId);
        return startDashboardSession(app, request, reply, result.user, account.id, 'sso', await landingPageOf(app, result.user));
      }
    }
  });
}
