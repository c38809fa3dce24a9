import type { BotCheckVendor, Form } from '../forms/form.types.js';

/** What a bot check concluded: passed, failed (`bot_check`), or an ALTCHA solution sent too soon (`too_fast`). */
export type BotCheckVerdict = 'passed' | 'bot_check' | 'too_fast';

/** One vendor's check. `response` is the submission's value of the vendor's field; undefined when absent. */
export interface BotCheckVerifier {
  readonly vendor: Exclude<BotCheckVendor, 'none'>;
  verify(form: Form, response: string | undefined, remoteIp: string): Promise<BotCheckVerdict>;
}
