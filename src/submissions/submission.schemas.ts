/** The specification's Submission resource (management view). */
export const submissionJsonSchema = {
  type: 'object',
  required: ['id', 'createdAt', 'status', 'isSpam', 'country', 'payload'],
  properties: {
    id: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' },
    status: { type: 'string', enum: ['delivered'] },
    isSpam: { type: 'integer', enum: [0, 1] },
    country: { type: 'string', description: 'Two-letter country code; XX when unknown' },
    payload: {
      type: 'object',
      description: 'Field name to value (string, number, boolean, null or an array of those); control fields are not in it',
      additionalProperties: true,
    },
  },
} as const;
