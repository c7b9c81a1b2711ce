import { integerFrom, portFrom, serviceUrlFrom } from './env';

/** Which PostgreSQL a process uses, and how many connections it keeps: the same for services and the CLI. */
export interface DatabaseSettings {
  /** DATABASE_URL: the product's database on a server of the operator's; undefined: the embedded one. */
  url: string | undefined;
  /** EMBEDDED_PG_PORT: where the embedded PostgreSQL listens (127.0.0.1) when this process starts it. */
  embeddedPort: number;
  /** DB_POOL_MAX: connections the process keeps open at most. */
  poolMax: number;
}

export const DEFAULT_EMBEDDED_PG_PORT = 54329;

/**
 * DATABASE_URL is checked for its form only (postgres:// or postgresql://, what pg accepts):
 * whether the server answers is found out by connecting, and explained then.
 */
export function databaseSettingsFrom(env: NodeJS.ProcessEnv): DatabaseSettings {
  return {
    url: serviceUrlFrom(
      env,
      'DATABASE_URL',
      ['postgres:', 'postgresql:'],
      'postgres://user:password@host:5432/database',
    ),
    embeddedPort: portFrom(env, 'EMBEDDED_PG_PORT', DEFAULT_EMBEDDED_PG_PORT),
    // PostgreSQL's own max_connections defaults to 100; far more is a typo, not a pool.
    poolMax: integerFrom(env, 'DB_POOL_MAX', 10, 1, 1_000),
  };
}
