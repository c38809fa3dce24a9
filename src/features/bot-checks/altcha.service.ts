import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { createChallenge, extractParams, verifySolution } from 'altcha-lib';
import type { Challenge, Payload } from 'altcha-lib/types';
import type { Executor } from '../../platform/db/database.js';
import type { AltchaComplexity, Form } from '../forms/form.types.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import type { BotCheckVerdict, BotCheckVerifier } from './bot-check.types.js';
import { deleteExpiredAltchaSolutions, insertSpentAltchaSolution } from './altcha.repository.js';

/** How long a challenge may be solved and sent (docs/bot-checks.md, ALTCHA). */
export const ALTCHA_CHALLENGE_TTL_MS = 10 * 60 * 1000;

/**
 * The upper bound of the secret number per complexity. The widget tries numbers from 0 up, one
 * SHA-256 each, so the expected work is half of it: 10 000 hashes at low, 50 000 at medium
 * (the library's example bound is 100 000), 250 000 at high. Measured solve times in headless
 * Chromium are in BENCHMARKS.md; a bot posting thousands pays that CPU for each.
 */
export const ALTCHA_MAX_NUMBER: Record<AltchaComplexity, number> = { low: 20_000, medium: 100_000, high: 500_000 };

/**
 * How long a page visit's start carries over to the challenges fetched after its first one (the
 * widget fetches a new one when one expires, or after a reset). A page left open longer than this
 * starts counting again, which a minimum fill time of at most 60 seconds does not notice.
 */
export const ALTCHA_VISIT_MAX_MS = 2 * 60 * 60 * 1000;

/** A widget payload is about 300 characters of base64; anything far longer is not one. */
const MAX_PAYLOAD_LENGTH = 4096;
const PURGE_EVERY_MS = 10 * 60 * 1000;

function parsePayload(encoded: string): Payload | undefined {
  try {
    const value = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const p = value as Record<string, unknown>;
    const ok =
      p.algorithm === 'SHA-256' &&
      typeof p.challenge === 'string' &&
      /^[0-9a-f]{64}$/.test(p.challenge) &&
      typeof p.number === 'number' &&
      Number.isSafeInteger(p.number) &&
      typeof p.salt === 'string' &&
      typeof p.signature === 'string';
    return ok ? (value as Payload) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ALTCHA proof of work, issued and verified by Formgate itself: no third party sees the visitor.
 * A challenge is signed with a key derived from the instance secret every instance on the
 * database shares (so any instance verifies what another issued), names its form and when it was
 * issued (inside the signed salt), and expires after ten minutes. A solution is accepted once:
 * spent solutions are rows with a unique key in the database, never Redis, so a replay cannot
 * pass on another instance or while Redis is down.
 */
export class AltchaService implements BotCheckVerifier {
  readonly vendor = 'altcha';
  private hmacKey: Promise<string> | undefined;
  private lastPurge = 0;

  constructor(
    private readonly db: Executor,
    private readonly secrets: InstanceSecretService,
  ) {}

  /**
   * A challenge for the form. `started` is when the visitor's page fetched its first challenge
   * (from a start token, see visitStart): the minimum fill time counts from there, not from this
   * challenge, so a challenge fetched again after an expiry or a reset does not make a visitor
   * who has been typing for minutes "too fast".
   */
  async issueChallenge(form: Form, now = Date.now(), started = now): Promise<Challenge> {
    return createChallenge({
      hmacKey: await this.key(),
      algorithm: 'SHA-256',
      maxnumber: ALTCHA_MAX_NUMBER[form.altchaComplexity],
      expires: new Date(now + ALTCHA_CHALLENGE_TTL_MS),
      params: { form: form.id, issued: String(now), started: String(Math.min(started, now)) },
    });
  }

  /** `<start ms>.<HMAC>`: names when a visit began, for this form only, unforgeable. */
  async startToken(form: Form, started: number): Promise<string> {
    return `${started}.${await this.startMac(form.id, started)}`;
  }

  /** The start a token names when it is this instance's, for this form, and within a visit's length of now; else undefined. */
  async visitStart(form: Form, token: string | undefined, now = Date.now()): Promise<number | undefined> {
    const match = token === undefined ? null : /^(\d{13})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!match) return undefined;
    const started = Number(match[1]);
    if (started > now || now - started > ALTCHA_VISIT_MAX_MS) return undefined;
    const expected = Buffer.from(await this.startMac(form.id, started));
    const given = Buffer.from(match[2]!);
    return given.length === expected.length && timingSafeEqual(given, expected) ? started : undefined;
  }

  private async startMac(formId: string, started: number): Promise<string> {
    return createHmac('sha256', await this.key()).update(`visit-start\n${formId}\n${started}`).digest('base64url').slice(0, 22);
  }

  async verify(form: Form, response: string | undefined): Promise<BotCheckVerdict> {
    if (!response || response.length > MAX_PAYLOAD_LENGTH) return 'bot_check';
    const payload = parsePayload(response);
    // verifySolution checks the signature and the expiry, both carried in the signed salt.
    if (!payload || !(await verifySolution(payload, await this.key(), true))) return 'bot_check';
    const params = extractParams(payload);
    const expires = Number(params.expires) * 1000;
    const issued = Number(params.issued);
    // Challenges issued before visits were tracked carry no start: their issue time is it.
    const started = params.started === undefined ? issued : Number(params.started);
    if (params.form !== form.id || !Number.isFinite(expires) || !Number.isFinite(issued) || !Number.isFinite(started)) return 'bot_check';
    this.purgeNowAndThen();
    const fresh = await insertSpentAltchaSolution(this.db, {
      challenge: payload.challenge,
      form_id: form.id,
      expires_at: new Date(expires).toISOString(),
    });
    if (!fresh) return 'bot_check';
    // Checked after spending: a solution sent too soon is not kept for a second, slower try.
    if (form.minFillSeconds > 0 && Date.now() - started < form.minFillSeconds * 1000) return 'too_fast';
    return 'passed';
  }

  /** Removes spent solutions past their expiry; returns how many. */
  async purgeExpired(now = new Date()): Promise<number> {
    return deleteExpiredAltchaSolutions(this.db, now.toISOString());
  }

  /** Spent solutions are few and small: purged from the verify path, at most every ten minutes, never awaited. */
  private purgeNowAndThen(): void {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.purgeExpired().catch(() => {
      this.lastPurge = 0;
    });
  }

  private key(): Promise<string> {
    this.hmacKey ??= this.secrets.getSecret('altcha-signing').then((secret) =>
      Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'formgate altcha challenge v1', 32)).toString('hex'),
    );
    // A failed load (database down) is tried again on the next call.
    this.hmacKey.catch(() => (this.hmacKey = undefined));
    return this.hmacKey;
  }
}
