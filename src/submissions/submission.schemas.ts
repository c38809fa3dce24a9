import { SPAM_REASONS } from './submission.types.js';

/** The specification's Submission resource (management view). */
export const submissionJsonSchema = {
  type: 'object',
  required: ['id', 'createdAt', 'status', 'isSpam', 'spamReason', 'country', 'payload'],
  properties: {
    id: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' },
    status: { type: 'string', enum: ['delivered'] },
    isSpam: { type: 'integer', enum: [0, 1] },
    spamReason: {
      type: ['string', 'null'],
      enum: [...SPAM_REASONS, null],
      description:
        'Why the submission is spam: honeypot, bot_check, blocked_term, blocked_email, too_many_links, or marked (by the owner); null when it is not spam',
    },
    country: { type: 'string', description: 'Two-letter country code; XX when unknown' },
    payload: {
      type: 'object',
      description: 'Field name to value (string, number, boolean, null or an array of those); control fields are not in it',
      additionalProperties: true,
    },
  },
} as const;
