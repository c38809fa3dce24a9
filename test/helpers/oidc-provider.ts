import { DashboardClient } from './dashboard-client.js';
import { expect } from 'vitest';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { freePort } from './free-port.js';

/** A person known to the test provider, with what it says about them. */
export interface TestIdentity {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

/** How the provider's token answer is bent, to see the client refuse it. */
export type IdTokenTampering = (claims: Record<string, unknown>) => Record<string, unknown>;

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next sign-in at the provider is (the provider's log-in page, answered at once). */
  signInAs(identity: TestIdentity): void;
  /** The next sign-in at the provider is cancelled by the person. */
  cancelNextSignIn(): void;
  /** Every ID token from now on is re-signed with the provider's own key after this change. */
  tamperWithIdTokens(change: IdTokenTampering | undefined): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (`oidc-provider`) on loopback, with one confidential client whose
 * redirect URI is given. Its log-in and consent pages are replaced by the test's choice of
 * person: an interaction signs in whoever `signInAs` named, and consent is granted.
 */
export async function startOidcProvider(redirectUri: string): Promise<TestOidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'formgate';
  const clientSecret = 'a-client-secret-of-thirty-two-chars!';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const identities = new Map<string, TestIdentity>();
  let next: TestIdentity | 'cancel' | undefined;
  let tampering: IdTokenTampering | undefined;

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx, sub) => {
      const identity = identities.get(sub);
      return identity ? { accountId: sub, claims: async () => ({ ...identity }) } : undefined;
    },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    cookies: { keys: ['formgate-test-provider'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    // Consent is taken as given: the test is about the client, not the provider's pages.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();

  const server = createServer((req, res) => {
    void (async () => {
      if (req.url?.startsWith('/interaction/')) {
        const chosen = next;
        next = undefined;
        if (chosen === 'cancel') {
          await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User aborted interaction' }, { mergeWithLastSubmission: false });
        } else if (chosen) {
          identities.set(chosen.sub, chosen);
          await provider.interactionFinished(req, res, { login: { accountId: chosen.sub } }, { mergeWithLastSubmission: false });
        } else {
          res.writeHead(500).end('the test chose nobody to sign in');
        }
        return;
      }
      if (req.url === '/token' && tampering) rewriteIdToken(res, tampering, privateKey);
      handle(req, res);
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (identity) => {
      next = identity;
    },
    cancelNextSignIn: () => {
      next = 'cancel';
    },
    tamperWithIdTokens: (change) => {
      tampering = change;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Holds the token endpoint's JSON answer back and sends it with its ID token re-signed after `change`. */
function rewriteIdToken(res: ServerResponse, change: IdTokenTampering, key: CryptoKey): void {
  const chunks: Buffer[] = [];
  const end = res.end.bind(res);
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) => (name.toLowerCase() === 'content-length' ? res : setHeader(name, value));
  res.write = ((chunk: string | Buffer) => {
    chunks.push(Buffer.from(chunk));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: string | Buffer) => {
    if (chunk) chunks.push(Buffer.from(chunk));
    void (async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      if (typeof body.id_token === 'string') {
        const claims = change(decodeJwt(body.id_token) as Record<string, unknown>);
        body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(key);
      }
      end(JSON.stringify(body));
    })();
    return res;
  }) as typeof res.end;
}

/** Follows the redirects of a trip through the provider; returns the app's callback path the browser is sent back to. */
export async function callbackOfTrip(provider: TestOidcProvider, appUrl: string, start: Response): Promise<string> {
  expect(start.status).toBe(303);
  const jar = new DashboardClient(provider.issuer);
  let location = start.headers.get('location')!;
  expect(location.startsWith(`${provider.issuer}/`)).toBe(true);
  while (location.startsWith(`${provider.issuer}/`)) {
    const { res } = await jar.get(location.slice(provider.issuer.length));
    expect(res.status, `${location} answered ${res.status}`).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    location = new URL(res.headers.get('location')!, provider.issuer).href;
  }
  expect(location.startsWith(`${appUrl}/dashboard/auth/oidc/callback?`)).toBe(true);
  return location.slice(appUrl.length);
}

/**
 * Follows a redirect to the provider and back, signed in there as `identity`, as a browser would;
 * returns the app's answer at its callback.
 */
export async function followSsoTrip(
  provider: TestOidcProvider,
  appUrl: string,
  browser: DashboardClient,
  start: Response,
  identity: TestIdentity,
): Promise<{ res: Response; html: string }> {
  provider.signInAs(identity);
  return browser.get(await callbackOfTrip(provider, appUrl, start));
}
