import { MAX_TAG_LENGTH, MAX_TAGS_PER_SUBMISSION, TRIAGE_STATES } from '../inbox/inbox.types.js';
import { SPAM_REASONS } from '../submissions/submission.types.js';

/** The API's Submission resource (management view, docs/api.md). */
export const submissionJsonSchema = {
  type: 'object',
  required: ['id', 'createdAt', 'status', 'isSpam', 'spamReason', 'country', 'payload', 'triage'],
  properties: {
    id: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' },
    status: { type: 'string', enum: ['delivered'] },
    isSpam: { type: 'integer', enum: [0, 1] },
    spamReason: {
      type: ['string', 'null'],
      enum: [...SPAM_REASONS, null],
      description:
        'Why the submission is spam: honeypot, bot_check, blocked_term, blocked_email, too_many_links, marked (by the owner), too_fast (an ALTCHA solution sent sooner than the form\'s minimum fill time) classifier (the learning filter) or malware (clamd found malware in a file, which was not kept); null when it is not spam',
    },
    country: { type: 'string', description: 'Two-letter country code; XX when unknown' },
    payload: {
      type: 'object',
      description:
        'Field name to value (string, number, boolean, null or an array of those); control fields are not in it. On a form that keeps files, a file field holds {"file": {id, name, size, type}} (an array of them for several files); download it at GET /v1/api/files/{id}',
      additionalProperties: true,
    },
    triage: {
      type: 'object',
      description: "The team inbox's state of the submission (kept beside it; the other fields never change with it)",
      required: ['read', 'state', 'assignee', 'tags'],
      additionalProperties: false,
      properties: {
        read: { type: 'boolean', description: 'Opened in the dashboard, or marked read' },
        state: { type: 'string', enum: [...TRIAGE_STATES], description: 'open until someone marks it done' },
        assignee: { type: ['string', 'null'], format: 'email', description: "The assigned member's email; null when nobody is assigned" },
        tags: {
          type: 'array',
          maxItems: MAX_TAGS_PER_SUBMISSION,
          items: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH },
          description: 'Lower case, alphabetical',
        },
      },
    },
  },
} as const;
