import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeEmail } from '../../../../features/accounts/account.service.js';
import { rethrowUnlessValidation } from '../../../../platform/errors.js';
import { clientKey, rateLimited } from '../../../../platform/http/rate-limits.js';
import type { Counter } from '../../../../platform/lib/rate-limiter.js';
import { SESSION_COOKIE, pageContext, sendPage, setFlash } from '../../page.js';
import { landingPageOf, startDashboardSession, startingAccountOf } from '../../session-cookie.js';

const credentialsSchema = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    // Lengths are checked by the account service, so an over-long value gets a sentence by its field.
    email: { type: 'string', maxLength: 10000 },
    password: { type: 'string', maxLength: 1024 },
    displayName: { type: 'string', maxLength: 10000 },
    _csrf: { type: 'string' },
  },
} as const;

type Credentials = { email: string; password: string; displayName?: string };

/** Failed log-ins allowed per client address a minute and per account email per 15 minutes. */
export const LOGIN_FAILURES_PER_ADDRESS = 10;
export const LOGIN_FAILURES_PER_EMAIL = 10;
/** Sign-up attempts per client address a minute. */
export const SIGNUPS_PER_ADDRESS = 10;

/** Sign-up's field errors as sentences (the account service's are terse validator text). */
const signupMessages: Record<string, string> = {
  email: 'Enter an email address like name@example.com.',
  displayName: 'Enter your name, up to 200 characters.',
  password: 'Use a password of 8 to 1024 characters.',
};

const loginCounters = (request: FastifyRequest, email: string): [Counter, Counter] => [
  { key: `login-ip:${clientKey(request.ip)}`, windowMs: 60_000 },
  { key: `login-email:${normalizeEmail(email)}`, windowMs: 15 * 60_000 },
];

/** What the log-in and sign-up pages offer besides their form: single sign-on, password log-in. */
export const signInChoices = (app: FastifyInstance) => ({
  sso: app.services.sso.enabled ? { displayName: app.config.oidc!.displayName, href: '/dashboard/auth/oidc' } : undefined,
  passwordLogin: app.config.passwordLogin,
});

const DISABLED_MESSAGE = 'This account is disabled. Ask this instance\'s admin to enable it.';
const NO_ACCOUNT_MESSAGE = 'You are not a member of any account any more. Ask an account\'s owner for an invitation.';

/** Sign-up closed says so by its name (a 404: there is no sign-up page on this server). */
function signupClosed(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const heading = 'Sign-up is closed';
  return sendPage(reply, 'message', pageContext(request, reply, heading), { heading, text: 'This server does not take new accounts. Ask its operator for one, or log in if you have one.', links: [{ href: '/dashboard/login', text: 'Log in' }] }, 404);
}

export async function authPages(app: FastifyInstance): Promise<void> {
  // The admin's choice in the database wins over DASHBOARD_SIGNUP, read at every request so every instance follows it.
  const isSignupOpen = () => app.services.admin.signupOpen();
  const secure = app.config.baseUrl.startsWith('https:');

  // Every attempt is counted before the password is checked (so parallel guesses cannot slip
  // past the limit) and a successful one is taken back: only failures add up. The address is
  // counted first; an address over its limit makes no per-email counters, so one client cannot
  // fill memory with counters for invented emails.
  app.post<{ Body: Credentials }>('/dashboard/login', { schema: { hide: true, body: credentialsSchema } }, async (request, reply) => {
    const [addressCounter, emailCounter] = loginCounters(request, request.body.email);
    const [byAddress] = await app.limiter.hit(addressCounter);
    if (byAddress!.count > LOGIN_FAILURES_PER_ADDRESS) {
      throw rateLimited('Too many failed log-in attempts from this address. Wait a minute and try again.', byAddress!.resetMs);
    }
    const [byEmail] = await app.limiter.hit(emailCounter);
    if (byEmail!.count > LOGIN_FAILURES_PER_EMAIL) {
      throw rateLimited('Too many failed log-in attempts for this account. Wait a while and try again.', byEmail!.resetMs);
    }
    const counters = [addressCounter, emailCounter];
    const user = await app.services.accounts.verifyCredentials(request.body.email, request.body.password);
    if (!user) {
      // Not awaited: an existing user's failure writes an audit event, an unknown email writes
      // nothing, and the answer must take as long for either.
      void app.services.accounts.recordFailedSignIn(request.body.email).catch((err: unknown) => request.log.warn({ err }, 'recording a failed sign-in failed'));
      const page = { ...pageContext(request, reply, 'Log in'), error: 'Wrong email or password.' };
      return sendPage(reply, 'auth', page, { heading: 'Log in', action: '/dashboard/login', email: request.body.email, signupOpen: await isSignupOpen(), ...signInChoices(app) }, 401);
    }
    const accountId = await startingAccountOf(app, user.id);
    const account = accountId ? await app.services.accounts.findAccount(accountId) : undefined;
    if (!account || account.disabled) {
      await app.limiter.unhit(...counters);
      const page = { ...pageContext(request, reply, 'Log in'), error: account ? DISABLED_MESSAGE : NO_ACCOUNT_MESSAGE };
      return sendPage(reply, 'auth', page, { heading: 'Log in', action: '/dashboard/login', email: request.body.email, signupOpen: await isSignupOpen(), ...signInChoices(app) }, 403);
    }
    await app.limiter.unhit(...counters);
    return startDashboardSession(app, request, reply, user, account.id, 'password', await landingPageOf(app, user));
  });

  app.post<{ Body: Credentials }>('/dashboard/signup', { schema: { hide: true, body: credentialsSchema } }, async (request, reply) => {
    const [attempts] = await app.limiter.hit({ key: `signup-ip:${clientKey(request.ip)}`, windowMs: 60_000 });
    if (attempts!.count > SIGNUPS_PER_ADDRESS) throw rateLimited('Too many attempts. Wait a minute and try again.', attempts!.resetMs);
    if (!(await isSignupOpen())) return signupClosed(request, reply);
    try {
      const account = await app.services.accounts.createAccount({
        email: request.body.email,
        displayName: request.body.displayName,
        password: request.body.password,
      });
      return await startDashboardSession(app, request, reply, await app.services.accounts.getUser(account.id), account.id, 'password');
    } catch (err) {
      rethrowUnlessValidation(err);
      const fieldErrors = Object.fromEntries(Object.keys(err.fieldErrors ?? {}).map((field) => [field, signupMessages[field] ?? 'Check this field.']));
      if (err.fieldErrors?.email === 'already registered') fieldErrors.email = 'An account with this email already exists. Log in, or use “Forgot password?”.';
      const page = { ...pageContext(request, reply, 'Sign up'), error: 'The account was not created: see the messages by the fields.' };
      return sendPage(reply, 'auth', page, { heading: 'Sign up', action: '/dashboard/signup', signup: true, email: request.body.email, displayName: request.body.displayName, fieldErrors, ...signInChoices(app) }, 400);
    }
  });

  // A session whose account was disabled since opens nothing; the page says why instead of just asking to log in.
  app.get('/dashboard/login', { schema: { hide: true } }, async (request, reply) => {
    const page = pageContext(request, reply, 'Log in');
    if (request.ownerDisabled) page.error = DISABLED_MESSAGE;
    return sendPage(reply, 'auth', page, { heading: 'Log in', action: '/dashboard/login', signupOpen: await isSignupOpen(), ...signInChoices(app) });
  });

  app.get('/dashboard/signup', { schema: { hide: true } }, async (request, reply) => {
    if (!(await isSignupOpen())) return signupClosed(request, reply);
    return sendPage(reply, 'auth', pageContext(request, reply, 'Sign up'), { heading: 'Sign up', action: '/dashboard/signup', signup: true, ...signInChoices(app) });
  });

  app.post('/dashboard/logout', { schema: { hide: true } }, async (request, reply) => {
    await app.services.sessions.endSession(request.cookies[SESSION_COOKIE]);
    reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    setFlash(reply, { notice: 'Logged out.' }, secure);
    return reply.redirect('/dashboard/login', 303);
  });
}
