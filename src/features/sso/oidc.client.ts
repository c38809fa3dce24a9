import type * as Oidc from 'openid-client';
import type { OidcConfig } from '../../platform/config.js';
import type { SsoFailureReason, VerifiedIdentity } from './sso.types.js';

/** What the browser carries between the redirect to the provider and the way back (a cookie). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** A sign-in that did not work, with the reason the person is shown. */
export class SsoFailure extends Error {
  constructor(
    readonly reason: SsoFailureReason,
    detail: string,
  ) {
    super(detail);
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const PROVIDER_TIMEOUT_SECONDS = 10;

let oidcModule: Promise<typeof Oidc> | undefined;

/** openid-client loads with the first sign-in: an instance without single sign-on never holds it. */
function loadOidc(): Promise<typeof Oidc> {
  oidcModule ??= import('openid-client');
  return oidcModule;
}

/**
 * The authorization code flow with PKCE, `state` and `nonce` against one provider, through
 * openid-client: it checks the ID token's signature (the provider's JWKS), issuer, audience,
 * expiry and nonce. The provider's metadata is discovered on first use and kept; a failed
 * discovery is tried again on the next sign-in.
 */
export class OidcClient {
  private discovered: Promise<Oidc.Configuration> | undefined;

  constructor(
    private readonly settings: OidcConfig,
    private readonly redirectUri: string,
  ) {}

  async beginSignIn(): Promise<{ url: string; pending: PendingSignIn }> {
    const oidc = await loadOidc();
    const configuration = await this.configuration();
    const pending: PendingSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: this.settings.scopes,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** Trades the code of the provider's redirect for a verified identity, or throws SsoFailure. */
  async finishSignIn(callbackUrl: URL, pending: PendingSignIn): Promise<VerifiedIdentity> {
    const oidc = await loadOidc();
    const configuration = await this.configuration();
    // Checked here too, so a mismatch gets its own sentence rather than a generic one.
    if (!callbackUrl.searchParams.has('error') && callbackUrl.searchParams.get('state') !== pending.state) {
      throw new SsoFailure('state_mismatch', 'the state parameter does not match the sign-in this browser started');
    }
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw toSsoFailure(oidc, err);
    }
    const claims = tokens.claims();
    if (!claims) throw new SsoFailure('id_token_invalid', 'the provider sent no ID token');
    let email = typeof claims.email === 'string' ? claims.email : undefined;
    let emailVerified = claims.email_verified === true;
    let name = typeof claims.name === 'string' ? claims.name : undefined;
    // Providers that keep the ID token small put the address in the UserInfo answer only.
    if (email === undefined) {
      try {
        const info = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        email = typeof info.email === 'string' ? info.email : undefined;
        emailVerified = info.email_verified === true;
        name ??= typeof info.name === 'string' ? info.name : undefined;
      } catch (err) {
        throw toSsoFailure(oidc, err);
      }
    }
    if (email === undefined) throw new SsoFailure('no_email', 'the provider shared no email address (is the email scope granted?)');
    return { issuer: claims.iss, subject: claims.sub, email, emailVerified, ...(name ? { name } : {}) };
  }

  private configuration(): Promise<Oidc.Configuration> {
    this.discovered ??= this.discover().catch((err: unknown) => {
      this.discovered = undefined;
      throw new SsoFailure('provider_unreachable', `discovery at ${this.settings.issuer} failed: ${(err as Error).message}`);
    });
    return this.discovered;
  }

  private async discover(): Promise<Oidc.Configuration> {
    const oidc = await loadOidc();
    const issuer = new URL(this.settings.issuer);
    // Plain http only for a provider on this machine (development and tests).
    const insecure = issuer.protocol === 'http:' && LOOPBACK_HOSTS.has(issuer.hostname);
    return oidc.discovery(
      issuer,
      this.settings.clientId,
      this.settings.clientSecret,
      this.settings.clientSecret === undefined ? oidc.None() : undefined,
      { timeout: PROVIDER_TIMEOUT_SECONDS, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}) },
    );
  }
}

function toSsoFailure(oidc: typeof Oidc, err: unknown): SsoFailure {
  if (err instanceof SsoFailure) return err;
  if (err instanceof oidc.AuthorizationResponseError) {
    return new SsoFailure(err.error === 'access_denied' ? 'cancelled' : 'provider_error', `${err.error}: ${err.error_description ?? ''}`);
  }
  // The token endpoint's refusal: most often a code used twice or too late.
  if (err instanceof oidc.ResponseBodyError) return new SsoFailure('code_rejected', `${err.error}: ${err.error_description ?? ''}`);
  if (err instanceof TypeError || (err as { name?: string }).name === 'AbortError' || (err as { name?: string }).name === 'TimeoutError') {
    return new SsoFailure('provider_unreachable', (err as Error).message);
  }
  return new SsoFailure('id_token_invalid', (err as Error).message);
}
