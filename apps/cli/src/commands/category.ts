import { createBusinessCategory } from '@contacts/auth';
import type { Command } from './index';

export const categoryCommands: Record<string, Command> = {
  create: {
    summary: 'category create --name N',
    options: { name: { type: 'string' } },
    required: ['name'],
    run: (values, { db }) => createBusinessCategory(db, { name: values.name }),
  },
};
