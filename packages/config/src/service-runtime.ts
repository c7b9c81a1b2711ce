import { isIP } from 'node:net';
import { type DatabaseSettings, databaseSettingsFrom } from './database-settings';
import { booleanFrom, ConfigError, integerFrom, LONGEST_TIMER_SECONDS } from './env';

/** How a service process runs, the same for every service: its database and its shutdown. */
export interface ServiceRuntime {
  /** DATABASE_URL, EMBEDDED_PG_PORT, DB_POOL_MAX. */
  database: DatabaseSettings;
  /** MIGRATE_ON_START=true: migrate an external database at start (embedded ones always are). */
  migrateOnStart: boolean;
  /** SHUTDOWN_TIMEOUT: seconds in-flight requests get to finish on SIGTERM (default 10). */
  shutdownTimeout: number;
  /** LISTEN_ADDRESS: the one address to listen on; undefined: every interface. */
  listenAddress: string | undefined;
}

export function serviceRuntimeFrom(env: NodeJS.ProcessEnv): ServiceRuntime {
  return {
    database: databaseSettingsFrom(env),
    migrateOnStart: booleanFrom(env, 'MIGRATE_ON_START', false),
    shutdownTimeout: integerFrom(env, 'SHUTDOWN_TIMEOUT', 10, 0, LONGEST_TIMER_SECONDS),
    listenAddress: listenAddressFrom(env),
  };
}

/**
 * LISTEN_ADDRESS: an IP address of this machine (127.0.0.1 behind a proxy on the same host, so
 * that nothing else reaches a service that trusts the proxy's X-Forwarded-* headers). An address,
 * not a name: a name could resolve to several, or to none at the next start.
 */
function listenAddressFrom(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.LISTEN_ADDRESS;
  if (raw === undefined || raw === '') return undefined;
  if (isIP(raw) === 0) {
    throw new ConfigError(`LISTEN_ADDRESS must be an IP address (127.0.0.1, ::1, 0.0.0.0, …), got "${raw}"`);
  }
  return raw;
}
