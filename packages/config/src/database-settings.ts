import { ConfigError, integerFrom, nodeEnvironmentFrom, portFrom, serviceUrlFrom, withoutPassword } from './env';

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
 * DATABASE_URL is required in production, and checked for its form only (postgres:// or postgresql://, what pg accepts):
 * whether the server answers is found out by connecting, and explained then.
 */
/** libpq's modes and pg's own `no-verify` (encrypt, verify nothing); see driverConnectionString in packages/db. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

export function databaseSettingsFrom(env: NodeJS.ProcessEnv): DatabaseSettings {
  // Read first, whatever else is set: every process reads its database settings.
  const production = nodeEnvironmentFrom(env) === 'production';
  const url = serviceUrlFrom(
    env,
    'DATABASE_URL',
    ['postgres:', 'postgresql:'],
    'postgres://user:password@host:5432/database',
  );
  const parsed = url === undefined ? undefined : new URL(url);
  // Without one, PostgreSQL opens the database named as the user: postgres://postgres@host/ put
  // the product's tables into the server's own `postgres` database, unnoticed.
  if (url !== undefined && parsed?.pathname.replace(/^\//, '') === '') {
    throw new ConfigError(
      `DATABASE_URL names no database (postgres://user:password@host:5432/database), got "${withoutPassword(url)}": ` +
        "add the database's name after the last /; without it PostgreSQL would use the database named as the user",
    );
  }
  const parameters = parsed?.searchParams ?? new URLSearchParams();
  // A parameter given twice is read as one copy here and another by the driver (sslmode=disable&sslmode=require).
  const repeated = [...new Set(parameters.keys())].find((name) => parameters.getAll(name).length > 1);
  if (repeated !== undefined) {
    throw new ConfigError(`DATABASE_URL names ${repeated} more than once: give each parameter once`);
  }
  const sslmode = parameters.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
    throw new ConfigError(
      `DATABASE_URL's sslmode must be one of ${SSL_MODES.join(', ')}, got "${sslmode}" (any other value turned TLS on, unnoticed)`,
    );
  }
  // In production a missing (or misspelt) DATABASE_URL would give each process an embedded
  // database of its own: replicas each serving from an empty one.
  if (url === undefined && production) {
    throw new ConfigError(
      'DATABASE_URL must be set in production (postgres://user:password@host:5432/database); the embedded PostgreSQL is for development',
    );
  }
  return {
    url,
    embeddedPort: portFrom(env, 'EMBEDDED_PG_PORT', DEFAULT_EMBEDDED_PG_PORT),
    // PostgreSQL's own max_connections defaults to 100; far more is a typo, not a pool.
    poolMax: integerFrom(env, 'DB_POOL_MAX', 10, 1, 1_000),
  };
}
