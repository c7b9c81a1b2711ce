import { migrateLatest } from '@contacts/db';
import type { Command } from './index';

/** `pnpm cli migrate latest`: the one-shot migrate step of a deployment. */
export const migrateCommands: Record<string, Command> = {
  latest: {
    summary: 'migrate latest',
    options: {},
    required: [],
    run: async (_values, { db }) => ({ applied: await migrateLatest(db) }),
  },
};
