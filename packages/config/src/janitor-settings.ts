import { integerFrom, LONGEST_LIFETIME_SECONDS, LONGEST_TIMER_SECONDS } from './env';

/** When the janitor runs in a service process, and what it keeps. */
export interface JanitorSettings {
  /** JANITOR_INTERVAL: seconds between two passes; 0 switches the timer off in this process. */
  intervalSeconds: number;
  /** AUDIT_RETENTION_DAYS: audit events older than this are deleted. */
  auditRetentionDays: number;
  /** SYNC_TOKEN_TTL: tombstones of deleted contacts are kept as long as a sync token may ask for them. */
  syncTokenTtlSeconds: number;
}

/** How long a change-feed sync token stays usable, seconds (30 days). */
export const DEFAULT_SYNC_TOKEN_TTL_SECONDS = 2_592_000;

/** SYNC_TOKEN_TTL, read here for the contacts API (which issues the tokens) and the janitor alike. */
export function syncTokenTtlFrom(env: NodeJS.ProcessEnv): number {
  return integerFrom(env, 'SYNC_TOKEN_TTL', DEFAULT_SYNC_TOKEN_TTL_SECONDS, 60, LONGEST_LIFETIME_SECONDS);
}

const LONGEST_RETENTION_DAYS = 100 * 366;

export function janitorSettingsFrom(env: NodeJS.ProcessEnv): JanitorSettings {
  return {
    intervalSeconds: integerFrom(env, 'JANITOR_INTERVAL', 600, 0, LONGEST_TIMER_SECONDS),
    auditRetentionDays: integerFrom(env, 'AUDIT_RETENTION_DAYS', 365, 1, LONGEST_RETENTION_DAYS),
    syncTokenTtlSeconds: syncTokenTtlFrom(env),
  };
}
