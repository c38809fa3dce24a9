export const formJsonSchema = {
  type: 'object',
  required: ['id', 'name', 'isActive', 'createdAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    isActive: { type: 'integer', enum: [0, 1] },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as const;
