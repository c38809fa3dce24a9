import type { AccountService } from '../accounts/account.service.js';
import type { AdminService } from '../admin/admin.service.js';
import type { MemberService } from '../members/member.service.js';
import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import { nowIso } from '../lib/time.js';
import { OidcClient, SsoFailure, type PendingSignIn } from './oidc.client.js';
import { findSsoIdentityRow, insertSsoIdentity, recordSsoSignIn } from './sso.repository.js';
import type { SsoSignInResult, VerifiedIdentity } from './sso.types.js';

export const SSO_CALLBACK_PATH = '/dashboard/auth/oidc/callback';

/**
 * Single sign-on through the operator's OpenID Connect provider. An identity is its (issuer,
 * `sub`): the first time, it is linked to the account with the same address only when the
 * provider vouches for that address (`email_verified`), or gets a new account when sign-up is
 * open; later sign-ins find it by (issuer, `sub`) whatever its address has become.
 */
export class SsoService {
  private readonly client: OidcClient | undefined;

  constructor(
    private readonly db: Executor,
    config: Config,
    private readonly accounts: AccountService,
    private readonly admin: AdminService,
    private readonly members: MemberService,
  ) {
    this.client = config.oidc ? new OidcClient(config.oidc, `${config.baseUrl}${SSO_CALLBACK_PATH}`) : undefined;
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** The provider's address to send the browser to, and what the browser keeps meanwhile. */
  beginSignIn(): Promise<{ url: string; pending: PendingSignIn }> {
    return this.requireClient().beginSignIn();
  }

  /** Completes a sign-in from the provider's redirect; a failure is a result, never a throw. */
  async finishSignIn(callbackUrl: URL, pending: PendingSignIn): Promise<SsoSignInResult> {
    let identity: VerifiedIdentity;
    try {
      identity = await this.requireClient().finishSignIn(callbackUrl, pending);
    } catch (err) {
      if (err instanceof SsoFailure) return { ok: false, reason: err.reason, detail: err.message };
      throw err;
    }
    return this.signInIdentity(identity);
  }

  private async signInIdentity(identity: VerifiedIdentity): Promise<SsoSignInResult> {
    const now = nowIso();
    const linked = await findSsoIdentityRow(this.db, identity.issuer, identity.subject);
    if (linked) {
      const user = await this.accounts.findUser(linked.user_id);
      if (!user) return { ok: false, reason: 'signup_closed' };
      await recordSsoSignIn(this.db, identity.issuer, identity.subject, identity.email, now);
      return { ok: true, user, created: false };
    }
    // An unverified address could be anyone's: it neither links, nor creates, nor accepts an invitation.
    if (!identity.emailVerified) return { ok: false, reason: 'email_unverified' };
    let user = await this.accounts.findUserByEmail(identity.email);
    let created = false;
    if (!user) {
      const displayName = (identity.name ?? identity.email.split('@')[0]!).slice(0, 200);
      const mode = await this.admin.signupMode();
      if (mode !== 'closed' && (await this.members.hasLiveInvitation(identity.email))) {
        // Invited: the person joins the inviting accounts, with no account of their own.
        user = await this.accounts.createUser({ email: identity.email, displayName });
        await this.members.acceptAllFor(user);
      } else if (mode === 'open') {
        const account = await this.accounts.createAccount({ email: identity.email, displayName });
        user = await this.accounts.getUser(account.id);
      } else {
        return { ok: false, reason: 'signup_closed' };
      }
      created = true;
    }
    await insertSsoIdentity(this.db, {
      issuer: identity.issuer,
      subject: identity.subject,
      user_id: user.id,
      email: identity.email,
      created_at: now,
      last_sign_in_at: now,
    });
    return { ok: true, user, created };
  }

  private requireClient(): OidcClient {
    if (!this.client) throw new Error('single sign-on is not configured');
    return this.client;
  }
}
