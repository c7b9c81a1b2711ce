import { type DatabaseSettings, databaseSettingsFrom } from './database-settings';
import { booleanFrom, integerFrom, LONGEST_TIMER_SECONDS } from './env';

/** How a service process runs, the same for every service: its database and its shutdown. */
export interface ServiceRuntime {
  /** DATABASE_URL, EMBEDDED_PG_PORT, DB_POOL_MAX. */
  database: DatabaseSettings;
  /** MIGRATE_ON_START=true: migrate an external database at start (embedded ones always are). */
  migrateOnStart: boolean;
  /** SHUTDOWN_TIMEOUT: seconds in-flight requests get to finish on SIGTERM (default 10). */
  shutdownTimeout: number;
}

export function serviceRuntimeFrom(env: NodeJS.ProcessEnv): ServiceRuntime {
  return {
    database: databaseSettingsFrom(env),
    migrateOnStart: booleanFrom(env, 'MIGRATE_ON_START', false),
    shutdownTimeout: integerFrom(env, 'SHUTDOWN_TIMEOUT', 10, 0, LONGEST_TIMER_SECONDS),
  };
}
