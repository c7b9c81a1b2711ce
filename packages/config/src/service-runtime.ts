import { booleanFrom, integerFrom } from './env';

/** How a service process runs, the same for every service: its database pool and its shutdown. */
export interface ServiceRuntime {
  /** DB_POOL_MAX: connections the process keeps open at most (default 10). */
  databasePoolMax: number;
  /** MIGRATE_ON_START=true: migrate an external database at start (embedded ones always are). */
  migrateOnStart: boolean;
  /** SHUTDOWN_TIMEOUT: seconds in-flight requests get to finish on SIGTERM (default 10). */
  shutdownTimeout: number;
}

export function serviceRuntimeFrom(env: NodeJS.ProcessEnv): ServiceRuntime {
  return {
    databasePoolMax: integerFrom(env, 'DB_POOL_MAX', 10),
    migrateOnStart: booleanFrom(env, 'MIGRATE_ON_START', false),
    shutdownTimeout: integerFrom(env, 'SHUTDOWN_TIMEOUT', 10, 0),
  };
}
