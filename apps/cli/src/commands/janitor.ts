import { janitorSettingsFrom } from '@contacts/config';
import { runJanitorPass } from '@contacts/db';
import type { Command } from './index';

/**
 * `pnpm -s cli janitor`: one janitor pass now (what the services run every JANITOR_INTERVAL
 * seconds), e.g. from a cron job when the services' timer is off. Prints the rows deleted per
 * rule; `"ran": false` when another process was running a pass (nothing deleted, still exit 0).
 */
export const janitorCommand: Command = {
  summary: 'janitor',
  description:
    'One janitor pass now: deletes, in bounded batches, every row past its expiry or retention (expired tokens, ' +
    'codes, sessions, rate-limit windows, old audit events, tombstones, DPoP proofs). Prints the rows deleted per ' +
    'kind; "ran": false when another process holds the janitor lock.',
  options: {},
  required: [],
  // A malformed AUDIT_RETENTION_DAYS or SYNC_TOKEN_TTL throws a ConfigError: exit 2, like a bad flag (cli.ts).
  readSettings: janitorSettingsFrom,
  run: async (_values, { db, env }) => ({ ...(await runJanitorPass(db, janitorSettingsFrom(env))) }),
};
