import type { Form } from '../forms/form.types.js';
import type { BotCheckVerdict, BotCheckVerifier } from './bot-check.types.js';
import { askSiteverify } from './siteverify.js';

/** hCaptcha (field `h-captcha-response`). */
export class HcaptchaVerifier implements BotCheckVerifier {
  readonly vendor = 'hcaptcha';

  constructor(private readonly options: { verifyUrl: string; defaultSecret: string | undefined }) {}

  async verify(form: Form, response: string | undefined, remoteIp: string): Promise<BotCheckVerdict> {
    const outcome = await askSiteverify({
      verifyUrl: this.options.verifyUrl,
      secret: form.hcaptchaSecret ?? this.options.defaultSecret,
      token: response,
      remoteIp,
    });
    return outcome?.success === true ? 'passed' : 'bot_check';
  }
}
