import { migrateLatest, newerMigrations, pendingMigrations } from '@contacts/db';
import type { Command } from './index';

/** `pnpm cli migrate latest`: the one-shot migrate step of a deployment. */
export const migrateCommands: Record<string, Command> = {
  latest: {
    summary: 'migrate latest',
    description:
      'Applies every migration not yet applied (safe to run while the services run, and to run twice). A database ' +
      'a newer release migrated is left as it is: its migrations this release does not know are listed under newer.',
    needsCurrentSchema: false,
    options: {},
    required: [],
    run: async (_values, { db }) => ({ applied: await migrateLatest(db), newer: await newerMigrations(db) }),
  },
  status: {
    summary: 'migrate status',
    description:
      'Lists the migrations this release would apply (pending) and those of a newer release the database already ' +
      'has (newer), changing nothing: before a roll-out, what `migrate latest` will do.',
    needsCurrentSchema: false,
    options: {},
    required: [],
    run: async (_values, { db }) => {
      const [pending, newer] = await Promise.all([pendingMigrations(db), newerMigrations(db)]);
      return { current: pending.length === 0, pending, newer };
    },
  },
};
