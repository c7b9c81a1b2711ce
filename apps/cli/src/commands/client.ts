import { registerClient } from '@contacts/auth';
import type { Command } from './index';

export const clientCommands: Record<string, Command> = {
  create: {
    summary: 'client create --owner M --name N --redirect-uri U [--redirect-uri U2 …] [--public] [--dpop]',
    options: {
      owner: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      public: { type: 'boolean' },
      dpop: { type: 'boolean' },
    },
    required: ['owner', 'name', 'redirect-uri'],
    run: async (values, { db }) => {
      const client = await registerClient(db, {
        ownerId: values.owner,
        name: values.name,
        redirectUris: values['redirect-uri'],
        isPublic: values.public === true,
        dpopBound: values.dpop === true,
      });
      return { ...client };
    },
  },
};
