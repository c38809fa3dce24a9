import type { Config } from '../../platform/config.js';
import type { Executor } from '../../platform/db/database.js';
import type { Form } from '../forms/form.types.js';
import type { InstanceSecretService } from '../secrets/instance-secret.service.js';
import { AltchaService } from './altcha.service.js';
import type { BotCheckVerdict, BotCheckVerifier } from './bot-check.types.js';
import { HcaptchaVerifier } from './hcaptcha.verifier.js';
import { RecaptchaVerifier } from './recaptcha.verifier.js';
import { TurnstileVerifier } from './turnstile.verifier.js';

/** Every bot-check vendor (docs/bot-checks.md) behind one call; the form's `botCheck` picks the verifier. */
export class BotCheckService {
  readonly altcha: AltchaService;
  private readonly verifiers: ReadonlyMap<string, BotCheckVerifier>;

  constructor(db: Executor, config: Config, secrets: InstanceSecretService) {
    this.altcha = new AltchaService(db, secrets);
    const list: BotCheckVerifier[] = [
      new TurnstileVerifier({ verifyUrl: config.turnstileVerifyUrl, defaultSecret: config.turnstileSecretKey }),
      new HcaptchaVerifier({ verifyUrl: config.hcaptchaVerifyUrl, defaultSecret: config.hcaptchaSecretKey }),
      new RecaptchaVerifier({ verifyUrl: config.recaptchaVerifyUrl, defaultSecret: config.recaptchaSecretKey }),
      this.altcha,
    ];
    this.verifiers = new Map(list.map((v) => [v.vendor, v]));
  }

  /**
   * Checks the response the submission carried in its vendor's field. A form without a bot check
   * passes without any work; a failure of any kind (no response, a vendor unreachable) is a
   * verdict, never an exception: the caller files the submission as spam.
   */
  async verify(form: Form, response: string | undefined, remoteIp: string): Promise<BotCheckVerdict> {
    const verifier = this.verifiers.get(form.botCheck);
    if (!verifier) return 'passed';
    return verifier.verify(form, response, remoteIp);
  }
}
