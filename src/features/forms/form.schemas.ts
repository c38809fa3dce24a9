export const formJsonSchema = {
  type: 'object',
  required: ['id', 'name', 'isActive', 'createdAt', 'sealed'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    isActive: { type: 'integer', enum: [0, 1] },
    createdAt: { type: 'string', format: 'date-time' },
    sealed: {
      description: "Sealed forms: the age recipients the visitor's browser encrypts the fields to; null when the form is not sealed",
      type: ['object', 'null'],
      required: ['recipients'],
      properties: {
        recipients: {
          type: 'array',
          items: {
            type: 'object',
            required: ['recipient', 'label'],
            properties: {
              recipient: { type: 'string', pattern: '^age1[02-9ac-hj-np-z]{58}$', description: 'An age X25519 recipient' },
              label: { type: ['string', 'null'], description: 'Whose key it is, as its owner labelled it' },
            },
          },
        },
      },
    },
  },
} as const;
