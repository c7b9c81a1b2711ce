import { ConfigError, type JanitorSettings, janitorSettingsFrom } from '@contacts/config';
import { runJanitorPass } from '@contacts/db';
import { UsageError } from '../cli-context';
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
  run: async (_values, { db, env }) => {
    return { ...(await runJanitorPass(db, settingsFrom(env))) };
  },
};

/** A malformed setting is the operator's input: exit 2 with the variable named, like a bad flag. */
function settingsFrom(env: NodeJS.ProcessEnv): JanitorSettings {
  try {
    return janitorSettingsFrom(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
