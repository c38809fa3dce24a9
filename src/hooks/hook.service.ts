import type { Config } from '../config.js';
import type { Executor } from '../db/database.js';
import type { FormService } from '../forms/form.service.js';

// Issue 5: subscriptions (Pro+ plan, SSRF-checked targetUrl, one-time secret).
export class HookService {
  constructor(
    protected readonly db: Executor,
    protected readonly config: Config,
    protected readonly forms: FormService,
  ) {}
}
