export const accountJsonSchema = {
  type: 'object',
  required: ['id', 'email', 'displayName', 'planId'],
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    displayName: { type: 'string' },
    planId: { type: 'string', enum: ['free', 'pro', 'business'] },
  },
} as const;
