import type { Form } from '../forms/form.types.js';
import type { BotCheckVerdict, BotCheckVerifier } from './bot-check.types.js';
import { askSiteverify } from './siteverify.js';

/**
 * Google reCAPTCHA (field `g-recaptcha-response`). A v2 answer has no score: success decides. A
 * v3 answer carries a score from 0 (a bot) to 1 (a person); below the form's
 * `recaptchaMinScore` it fails even with success.
 */
export class RecaptchaVerifier implements BotCheckVerifier {
  readonly vendor = 'recaptcha';

  constructor(private readonly options: { verifyUrl: string; defaultSecret: string | undefined }) {}

  async verify(form: Form, response: string | undefined, remoteIp: string): Promise<BotCheckVerdict> {
    const outcome = await askSiteverify({
      verifyUrl: this.options.verifyUrl,
      secret: form.recaptchaSecret ?? this.options.defaultSecret,
      token: response,
      remoteIp,
    });
    if (outcome?.success !== true) return 'bot_check';
    if (outcome.score === undefined) return 'passed';
    return typeof outcome.score === 'number' && outcome.score >= form.recaptchaMinScore ? 'passed' : 'bot_check';
  }
}
