import knex, { type Knex } from 'knex';
import pg from 'pg';

// Return DATE columns as 'YYYY-MM-DD' strings: a calendar date has no time zone,
// and turning it into a JS Date would shift it by the server's offset.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);
// COUNT(*) and BIGINT arrive as strings; every bigint we read fits in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number.parseInt(value, 10));

export type Database = Knex;

export interface ConnectionOptions {
  /** Maximum connections this process keeps open. */
  poolMax?: number;
  /** Name reported in pg_stat_activity, to tell replicas and services apart. */
  applicationName?: string;
  /** Where knex's own messages go (see knexLog); by default nowhere. */
  log?: (message: string) => void;
}

export function createDatabase(url: string, options: ConnectionOptions = {}): Database {
  return knex({
    client: 'pg',
    connection: {
      connectionString: driverConnectionString(url),
      application_name: options.applicationName ?? 'contacts',
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    acquireConnectionTimeout: 10_000,
    log: knexLog(options.log ?? (() => {})),
  });
}

/**
 * knex writes its warnings with console.log, on stdout: a failed connection as "Acquire
 * connection error: Error: … at …" with its stack, which breaks the CLI's one JSON document
 * and puts stacks in a launcher's terminal. What it reports there also rejects the query that
 * asked, where the caller explains it; so each message goes to `log` as its first line only.
 */
function knexLog(log: (message: string) => void): Knex.Config['log'] {
  const firstLine = (message: unknown) => log(`knex: ${String(message).split('\n')[0]}`);
  return { warn: firstLine, error: firstLine, deprecate: firstLine, debug: firstLine };
}

/**
 * The URL as the pg driver is given it. pg verifies the server's certificate and host name for
 * `sslmode` prefer, require and verify-ca as for verify-full (stricter than libpq, where require
 * only encrypts), and prints an eight-line warning saying so on every start and command. They
 * are handed to it as verify-full, what it does with them: the same connection, no warning. The
 * README says so (DATABASE_URL), and how to encrypt without verifying (`sslmode=no-verify`) or to
 * trust a private CA (`sslrootcert=`). Other values pass unchanged; settings refuse unknown ones.
 */
export function driverConnectionString(url: string): string {
  const parsed = URL.parse(url);
  const mode = parsed?.searchParams.get('sslmode');
  if (!parsed || (mode !== 'prefer' && mode !== 'require' && mode !== 'verify-ca')) return url;
  parsed.searchParams.set('sslmode', 'verify-full');
  return parsed.href;
}

/** Replaces the database name in a PostgreSQL URL. */
export function withDatabaseName(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
