import type { Form } from '../forms/form.types.js';
import type { BotCheckVerdict, BotCheckVerifier } from './bot-check.types.js';
import { askSiteverify } from './siteverify.js';

/** Cloudflare Turnstile (field `cf-turnstile-response`). */
export class TurnstileVerifier implements BotCheckVerifier {
  readonly vendor = 'turnstile';

  constructor(private readonly options: { verifyUrl: string; defaultSecret: string | undefined }) {}

  async verify(form: Form, response: string | undefined, remoteIp: string): Promise<BotCheckVerdict> {
    const outcome = await askSiteverify({
      verifyUrl: this.options.verifyUrl,
      secret: form.turnstileSecret ?? this.options.defaultSecret,
      token: response,
      remoteIp,
    });
    return outcome?.success === true ? 'passed' : 'bot_check';
  }
}
