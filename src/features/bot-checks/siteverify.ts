import { loadUndici } from '../../platform/lib/undici.js';

/** Tokens of every siteverify vendor are far shorter; a longer one is not worth a request. */
export const MAX_SITEVERIFY_TOKEN_LENGTH = 2048;
const VERIFY_TIMEOUT_MS = 5000;

/**
 * Turnstile, hCaptcha and reCAPTCHA share one protocol: a form-encoded POST of the secret, the
 * visitor's token and their address, answered with a JSON object. Anything short of such an
 * answer — no token, an over-long one, no secret, a network error, a timeout, a non-200 status,
 * a body that is not a JSON object — is undefined: the caller files the submission as spam.
 */
export async function askSiteverify(options: {
  verifyUrl: string;
  secret: string | undefined;
  token: string | undefined;
  remoteIp: string;
}): Promise<Record<string, unknown> | undefined> {
  const { verifyUrl, secret, token, remoteIp } = options;
  if (!secret || !token || token.length > MAX_SITEVERIFY_TOKEN_LENGTH) return undefined;
  try {
    const response = await loadUndici().request(verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret, response: token, remoteip: remoteIp }).toString(),
      headersTimeout: VERIFY_TIMEOUT_MS,
      bodyTimeout: VERIFY_TIMEOUT_MS,
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return undefined;
    }
    const outcome = (await response.body.json()) as unknown;
    return typeof outcome === 'object' && outcome !== null && !Array.isArray(outcome) ? (outcome as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
