import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import type { DeliveryDispatcher } from '../deliveries/delivery.dispatcher.js';
import type { FormService } from '../forms/form.service.js';

// Issue 3: acceptSubmission (one transaction: submission, idempotency record, outbox rows).
export class SubmissionService {
  constructor(
    protected readonly handle: DatabaseHandle,
    protected readonly config: Config,
    protected readonly forms: FormService,
    protected readonly deliveries: DeliveryDispatcher,
    protected readonly logger: FastifyBaseLogger,
  ) {}

  async close(): Promise<void> {}
}
