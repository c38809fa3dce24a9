import { loadUndici } from '../lib/undici.js';

const MAX_TURNSTILE_TOKEN_LENGTH = 2048;
const VERIFY_TIMEOUT_MS = 5000;

/**
 * Asks Cloudflare's siteverify whether a token is valid. Anything short of a clear "success" —
 * no token, an over-long one, no secret configured, a network error, a timeout, a non-JSON
 * answer — is false: the caller stores the submission as spam, so nothing is lost.
 */
export async function verifyTurnstileToken(options: {
  verifyUrl: string;
  secret: string | undefined;
  token: string | undefined;
  remoteIp: string;
}): Promise<boolean> {
  const { verifyUrl, secret, token, remoteIp } = options;
  if (!secret || !token || token.length > MAX_TURNSTILE_TOKEN_LENGTH) return false;
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
      return false;
    }
    const outcome = (await response.body.json()) as { success?: unknown };
    return outcome.success === true;
  } catch {
    return false;
  }
}
