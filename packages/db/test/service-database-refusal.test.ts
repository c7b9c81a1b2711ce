import { randomBytes } from 'node:crypto';
import { serviceRuntimeFrom } from '@contacts/config';
import { KnexTimeoutError } from 'knex';
import { describe, expect, inject, it } from 'vitest';
import {
  DatabaseNotReadyError,
  databaseFailureForLog,
  driverConnectionString,
  explainDatabaseFailure,
  openOwnServiceDatabase,
  openServiceDatabase,
  withDatabaseName,
} from '../src/index';
import { createEmptyTestDatabase, createTestDatabase } from '../src/testing/index';

/** What a service's main does: open its database, refusing one it cannot use. */
const openAsService = async (url: string, unreachable: (error: unknown) => void = () => {}) => {
  const database = await openServiceDatabase({
    settings: { url, embeddedPort: 1, dataDir: '/nonexistent', poolMax: 2 },
    applicationName: 'contacts-test',
    log: () => {},
    service: { name: 'auth', unreachable },
  });
  await database.close();
};

/** The paragraph a service prints for a refusal, as its main composes it. */
const refusalOf = async (url: string): Promise<string> => {
  const error = await openAsService(url).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DatabaseNotReadyError);
  return explainDatabaseFailure(error, url, { embeddedAlternative: false });
};

/** The test server's URL with `password` in it: trust authentication ignores it, the refusal must not show it. */
const withPassword = (url: string, user?: string) => {
  const parsed = new URL(url);
  if (user) parsed.username = user;
  parsed.password = 's3cret-pw';
  return parsed.toString();
};

describe("a service's database at start", () => {
  it('opens a migrated database', async () => {
    const database = await createTestDatabase();
    try {
      await openAsService(database.url);
    } finally {
      await database.drop();
    }
  });

  it('refuses a database that was never migrated, naming the migrate step', async () => {
    const database = await createEmptyTestDatabase();
    try {
      expect(await refusalOf(database.url)).toBe(
        'the database in DATABASE_URL has not been migrated: it has none of the tables this service needs. ' +
          'Run `pnpm -s cli migrate latest` with the same DATABASE_URL to bring it up to date (it is safe to run ' +
          'while the services run; with docker compose, `docker compose run --rm migrate`), then start auth again; ' +
          'or set MIGRATE_ON_START=true to have auth migrate it at start.',
      );
    } finally {
      await database.drop();
    }
  });

  it('refuses a database that is behind the code, naming the migrations it lacks', async () => {
    const database = await createTestDatabase();
    try {
      const [last] = await database.db('knex_migrations').orderBy('id', 'desc').limit(1).pluck('name');
      await database.db('knex_migrations').where({ name: last }).delete();
      expect(await refusalOf(database.url)).toMatch(
        new RegExp(`^the database in DATABASE_URL is behind: 1 migration\\(s\\) not applied \\(${last}\\)\\. Run `),
      );
    } finally {
      await database.drop();
    }
  });

  it('refuses a database that does not exist, naming where DATABASE_URL points but not its password', async () => {
    const name = `contacts_missing_${randomBytes(4).toString('hex')}`;
    const url = withPassword(withDatabaseName(inject('databaseServerUrl'), name));
    const { hostname, port } = new URL(url);
    const message = await refusalOf(url);
    expect(message).toBe(
      `could not open the database named by DATABASE_URL (${hostname}:${port || '5432'}/${name}): database "${name}" ` +
        'does not exist. Create that database, or point DATABASE_URL at an existing one.',
    );
  });

  it('refuses a role that does not exist', async () => {
    const url = withPassword(inject('databaseServerUrl'), 'contacts_no_such_role');
    const message = await refusalOf(url);
    expect(message).toMatch(/^the database named by DATABASE_URL \(.+\) refused its credentials \(/);
    expect(message).toContain('"contacts_no_such_role"');
    expect(message).toContain('Correct the user name or password in DATABASE_URL.');
    expect(message).not.toContain('s3cret-pw');
  });

  it('hands pg the sslmode it applies: prefer, require and verify-ca verify as verify-full (it would warn on each start)', () => {
    expect(driverConnectionString('postgres://db/x?sslmode=prefer&application_name=a')).toBe(
      'postgres://db/x?sslmode=verify-full&application_name=a',
    );
    for (const url of ['postgres://db/x', 'postgres://db/x?sslmode=no-verify', 'postgres://db/x?sslmode=disable']) {
      expect(driverConnectionString(url)).toBe(url);
    }
  });

  it('refuses a host that does not exist, without offering the embedded database', async () => {
    expect(await refusalOf('postgres://nope.invalid:5432/x')).toBe(
      'could not connect to the database named by DATABASE_URL (nope.invalid:5432/x): the host "nope.invalid" was ' +
        'not found (getaddrinfo ENOTFOUND nope.invalid). Correct the host name in DATABASE_URL.',
    );
  });

  it("explains a server that takes the connection and never answers in the launcher's words, not knex's pool advice", () => {
    // What knex throws when no connection is ready within acquireConnectionTimeout.
    const silent = new KnexTimeoutError(
      'Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?',
    );
    const message = explainDatabaseFailure(silent, 'postgres://contacts:s3cret@db.internal:5432/contacts');
    expect(message).toBe(
      'could not connect to the database named by DATABASE_URL (db.internal:5432/contacts): the server accepted the ' +
        'connection but did not answer in time (a server still starting or overloaded, or a proxy or firewall holding ' +
        'the connection). Check that the server runs and accepts connections, or unset DATABASE_URL to use the embedded database.',
    );
  });

  it('starts on a server that is down (it may be starting), and hands over one line to log with its code', async () => {
    const reported: unknown[] = [];
    await openAsService('postgres://postgres@127.0.0.1:1/x', (error) => reported.push(error));
    expect(reported).toHaveLength(1);
    expect(databaseFailureForLog(reported[0])).toEqual({
      type: 'Error',
      message: 'connect ECONNREFUSED 127.0.0.1:1',
      db_code: 'ECONNREFUSED',
    });
  });
});

describe("a service's database while it is away", () => {
  it("logs the driver's own lines (one per connection attempt) at debug: the failed requests and /readyz say it already", async () => {
    const lines: Array<{ level: string; message: string }> = [];
    const database = await openOwnServiceDatabase(
      'contacts-api',
      serviceRuntimeFrom({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' }),
      {
        info: (message) => lines.push({ level: 'info', message }),
        debug: (message) => lines.push({ level: 'debug', message }),
        warn: (_fields, message) => lines.push({ level: 'warn', message }),
      },
      '/nonexistent',
    );
    try {
      // Rejected once the pool gives up (or is closed below); what matters here is what it logs meanwhile.
      database.db.raw('select 1').catch(() => undefined);
      await expect
        .poll(() => lines.filter((line) => line.message.startsWith('knex: Acquire connection error')).length)
        .toBeGreaterThan(0);
      expect(lines.filter((line) => line.message.startsWith('knex:')).map((line) => line.level)).not.toContain('info');
    } finally {
      await database.close();
    }
  });
});

describe('databaseFailureForLog', () => {
  it('keeps the stack of anything but a failure to reach or open the database', () => {
    expect(databaseFailureForLog(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseFailureForLog(Object.assign(new Error('syntax error'), { code: '42601' }))).toBeUndefined();
    expect(databaseFailureForLog('not an error')).toBeUndefined();
  });

  it("gives a PostgreSQL refusal's first line and its SQLSTATE as db_code", () => {
    const error = Object.assign(new Error('database "x" does not exist\n    at parseErrorMessage (parser.ts:1:1)'), {
      code: '3D000',
    });
    expect(databaseFailureForLog(error)).toEqual({
      type: 'Error',
      message: 'database "x" does not exist',
      db_code: '3D000',
    });
  });
});
