import { normalizeEmail, type AccountService } from '../accounts/account.service.js';
import type { User } from '../accounts/account.types.js';
import type { AdminService } from '../admin/admin.service.js';
import type { MemberService } from '../members/member.service.js';
import type { Config } from '../../platform/config.js';
import type { Executor } from '../../platform/db/database.js';
import { AppError } from '../../platform/errors.js';
import { nowIso } from '../../platform/lib/time.js';
import { OidcClient, SsoFailure, type PendingSignIn } from './oidc.client.js';
import { findSsoIdentityRow, insertSsoIdentity, listSsoIdentityRowsOfUser, recordSsoSignIn } from './sso.repository.js';
import type { LinkedIdentity, SsoFailureReason, SsoIntent, SsoSignInResult, VerifiedIdentity } from './sso.types.js';

export const SSO_CALLBACK_PATH = '/dashboard/auth/oidc/callback';

type Refusal = Extract<SsoSignInResult, { kind: 'refused' }>;

const refused = (reason: SsoFailureReason, email?: string, detail?: string): Refusal => ({
  kind: 'refused',
  reason,
  ...(email !== undefined ? { email } : {}),
  ...(detail !== undefined ? { detail } : {}),
});

const isRefusal = (value: User | Refusal | undefined): value is Refusal => value !== undefined && 'kind' in value;

const displayNameOf = (identity: VerifiedIdentity) => (identity.name ?? identity.email.split('@')[0]!).slice(0, 200);

/**
 * Single sign-on through the operator's OpenID Connect provider. An identity is its (issuer,
 * `sub`); later sign-ins find it so, whatever its address has become. The first time, it links
 * to the user with the same address only when the provider verified the address **and** the
 * user's address is confirmed here: anyone can sign up with any address, and such an account
 * must not receive its real owner's sign-in. With no user for the address, the person chooses
 * among invitations waiting for it, or gets a new account when sign-up is open. Nobody joins an
 * account without choosing it: an invitation is accepted by its own trip to the provider.
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

  /**
   * Completes a trip to the provider for `intent`; a failure is a result, never a throw. A link's
   * user is the one signed in in the browser that started it (the caller checks that).
   */
  async finishSignIn(callbackUrl: URL, pending: PendingSignIn, intent: SsoIntent): Promise<SsoSignInResult> {
    let identity: VerifiedIdentity;
    try {
      identity = await this.requireClient().finishSignIn(callbackUrl, pending);
    } catch (err) {
      if (err instanceof SsoFailure) return refused(err.reason, undefined, err.message);
      throw err;
    }
    if (intent.kind === 'link') return this.link(identity, intent.userId);
    if (intent.kind === 'reauth') return this.reauthenticate(identity, intent.userId);
    const user = await this.knownUser(identity);
    if (isRefusal(user)) return user;
    return intent.kind === 'accept' ? this.accept(identity, user, intent.invitationId) : this.signIn(identity, user);
  }

  /** The provider identities linked to a user. */
  async listIdentities(userId: string): Promise<LinkedIdentity[]> {
    return (await listSsoIdentityRowsOfUser(this.db, userId)).map((row) => ({ issuer: row.issuer, email: row.email, createdAt: row.created_at, lastSignInAt: row.last_sign_in_at }));
  }

  /** The user this identity signs in: linked earlier, or a confirmed user with its verified address; undefined for nobody yet. */
  private async knownUser(identity: VerifiedIdentity): Promise<User | Refusal | undefined> {
    const now = nowIso();
    const linked = await findSsoIdentityRow(this.db, identity.issuer, identity.subject);
    if (linked) {
      const user = await this.accounts.findUser(linked.user_id);
      if (!user) return refused('no_account');
      await recordSsoSignIn(this.db, identity.issuer, identity.subject, identity.email, now);
      if (this.vouchesFor(identity, user)) await this.accounts.confirmEmail(user.id);
      return user;
    }
    // An unverified address could be anyone's: it neither links, nor creates, nor accepts an invitation.
    if (!identity.emailVerified) return refused('email_unverified');
    const user = await this.accounts.findUserByEmail(identity.email);
    if (!user) return undefined;
    if (!(await this.accounts.isEmailConfirmed(user.id))) return refused('account_unconfirmed', user.email);
    await this.insertIdentity(this.db, identity, user.id, now);
    return user;
  }

  private async signIn(identity: VerifiedIdentity, user: User | undefined): Promise<SsoSignInResult> {
    if (user) {
      if ((await this.members.listMemberships(user.id)).length === 0) {
        const invitations = await this.members.listWaitingFor(user);
        if (invitations.length > 0) return { kind: 'invitations', email: user.email, invitations };
      }
      return { kind: 'signed_in', user };
    }
    const email = normalizeEmail(identity.email);
    const mode = await this.admin.signupMode();
    if (mode !== 'closed') {
      // The provider vouches for the address, so its invitations are this person's to choose from.
      const invitations = await this.members.listWaitingInvitations(email);
      if (invitations.length > 0) return { kind: 'invitations', email, invitations };
    }
    if (mode !== 'open') return refused(mode === 'invite' ? 'signup_by_invitation' : 'signup_closed', email);
    const account = await this.accounts.createAccount({ email, displayName: displayNameOf(identity), emailConfirmed: true });
    const created = await this.accounts.getUser(account.id);
    await this.insertIdentity(this.db, identity, created.id, nowIso());
    return { kind: 'signed_in', user: created };
  }

  /** Joins the one invitation the person chose; a new person's user is made in the same step. */
  private async accept(identity: VerifiedIdentity, user: User | undefined, invitationId: string): Promise<SsoSignInResult> {
    const email = normalizeEmail(identity.email);
    try {
      if (user) return { kind: 'signed_in', user, accountId: await this.members.acceptWaiting(invitationId, user) };
      if ((await this.admin.signupMode()) === 'closed') return refused('signup_closed', email);
      return await this.db.transaction().execute(async (trx) => {
        const created = await this.accounts.createUser({ email, displayName: displayNameOf(identity), emailConfirmed: true }, trx);
        await this.insertIdentity(trx, identity, created.id, nowIso());
        return { kind: 'signed_in' as const, user: created, accountId: await this.members.acceptWaiting(invitationId, created, trx) };
      });
    } catch (err) {
      if (err instanceof AppError && ['not_found', 'validation_failed', 'access_denied'].includes(err.code)) return refused('invitation_gone', email, err.message);
      throw err;
    }
  }

  /** Links the identity to the signed-in user who asked for it; they proved both sides. */
  private async link(identity: VerifiedIdentity, userId: string): Promise<SsoSignInResult> {
    const user = await this.accounts.findUser(userId);
    if (!user) return refused('link_signed_out');
    const now = nowIso();
    if (!(await findSsoIdentityRow(this.db, identity.issuer, identity.subject))) await this.insertIdentity(this.db, identity, user.id, now);
    // Read back: the identity may be another user's, linked before or at the same moment.
    const linked = await findSsoIdentityRow(this.db, identity.issuer, identity.subject);
    if (linked?.user_id !== user.id) return refused('identity_taken');
    await recordSsoSignIn(this.db, identity.issuer, identity.subject, identity.email, now);
    if (this.vouchesFor(identity, user)) await this.accounts.confirmEmail(user.id);
    return { kind: 'linked', user };
  }

  /** The identity that signed on must be one linked to this very user: anyone else's proves nothing. */
  private async reauthenticate(identity: VerifiedIdentity, userId: string): Promise<SsoSignInResult> {
    const linked = await findSsoIdentityRow(this.db, identity.issuer, identity.subject);
    const user = linked?.user_id === userId ? await this.accounts.findUser(userId) : undefined;
    if (!user) return refused('reauth_other_identity');
    await recordSsoSignIn(this.db, identity.issuer, identity.subject, identity.email, nowIso());
    return { kind: 'reauthenticated', user };
  }

  /** The provider verified the very address the user has here. */
  private vouchesFor(identity: VerifiedIdentity, user: User): boolean {
    return identity.emailVerified && normalizeEmail(identity.email) === user.email;
  }

  private insertIdentity(db: Executor, identity: VerifiedIdentity, userId: string, now: string): Promise<void> {
    return insertSsoIdentity(db, { issuer: identity.issuer, subject: identity.subject, user_id: userId, email: identity.email, created_at: now, last_sign_in_at: now });
  }

  private requireClient(): OidcClient {
    if (!this.client) throw new Error('single sign-on is not configured');
    return this.client;
  }
}
