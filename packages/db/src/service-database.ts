import { EnvironmentError, type ServiceRuntime } from '@contacts/config';
import { type DatabaseServerSettings, openDatabaseServer } from './configured-database';
import { createDatabase, type Database } from './connection';
import { explainDatabaseFailure, requireCurrentSchema } from './database-failure';
import { migrateLatest, pendingMigrations } from './migrate';
import { dataDirectory } from './paths';

export interface ServiceDatabase {
  db: Database;
  kind: 'external' | 'embedded';
  /** The embedded server's data folder (undefined for DATABASE_URL's). */
  dataFolder: string | undefined;
  close(): Promise<void>;
}

/** The validated settings of a process's database (databaseSettingsFrom in @contacts/config, plus DATA_DIR). */
export interface ServiceDatabaseSettings extends DatabaseServerSettings {
  /** Connections kept open at most (DB_POOL_MAX). */
  poolMax: number;
}

/**
 * The database of one running service. With DATABASE_URL the schema is the migrate step's
 * job (`pnpm cli migrate`), and a service refuses to start on a database that is behind (see
 * `service`); with the embedded development database the service migrates it itself, so that
 * one command runs the product.
 * `migrate: true` (MIGRATE_ON_START=true, or the launcher) migrates an external database too:
 * replicas starting at once are serialised by the migration lock, so each migration is
 * applied exactly once.
 */
export async function openServiceDatabase(options: {
  settings: ServiceDatabaseSettings;
  applicationName: string;
  log: (message: string) => void;
  /** Where knex's own messages go; `log` when not given. */
  driverLog?: (message: string) => void;
  /** What the person running it should see about the embedded server (see EmbeddedDatabaseOptions; default: log). */
  warn?: (message: string) => void;
  mode?: 'own' | 'share';
  /** A short-lived command (the CLI): see EmbeddedDatabaseOptions. */
  command?: boolean;
  /** Migrate even an external database (the launcher does; production has its migrate step). */
  migrate?: boolean;
  /**
   * For a service's own process (not the CLI, not the launcher), when it does not migrate:
   * a DatabaseNotReadyError refuses a database whose schema is not current, or that cannot be
   * opened for a reason waiting will not fix (it does not exist, refuses the credentials, its
   * host is unknown). One that cannot be reached yet (refused, timing out, starting up) goes to
   * `unreachable` and the service starts anyway: /readyz reports it until the database answers.
   */
  service?: { name: string; unreachable: (error: unknown) => void };
}): Promise<ServiceDatabase> {
  const { settings } = options;
  const server = await openDatabaseServer(settings, {
    mode: options.mode ?? 'share',
    command: options.command === true,
    log: options.log,
    ...(options.warn ? { warn: options.warn } : {}),
  });
  const db = createDatabase(server.url, {
    poolMax: settings.poolMax,
    applicationName: options.applicationName,
    log: options.driverLog ?? options.log,
  });
  try {
    if (options.migrate || server.kind === 'embedded') {
      const applied = await migrateLatest(db);
      options.log(applied.length > 0 ? `migrations applied: ${applied.join(', ')}` : 'schema up to date');
    } else if (options.service) {
      const { name, unreachable } = options.service;
      await requireCurrentSchema(db, server.url, {
        needs: 'this service needs',
        aside: 'with docker compose, `docker compose run --rm migrate`',
        afterwards: `start ${name} again; or set MIGRATE_ON_START=true to have ${name} migrate it at start`,
        explain: { embeddedAlternative: false },
        whenUnreachable: unreachable,
      });
    } else {
      const pending = await pendingMigrations(db).catch(() => ['(database unreachable)']);
      if (pending.length > 0) options.log(`migrations pending: ${pending.join(', ')}; run \`pnpm cli migrate\``);
    }
  } catch (error) {
    // The embedded server this process started must not outlive a failed start.
    await db.destroy();
    await server.stop();
    throw error;
  }
  return {
    db,
    kind: server.kind,
    dataFolder: server.dataFolder,
    async close() {
      await db.destroy();
      await server.stop();
    },
  };
}

/** What `openOwnServiceDatabase` writes to: its progress, and each attempt at an unreachable server. */
export interface ServiceStartLog {
  info(message: string): void;
  debug(message: string): void;
  warn(fields: { err: unknown }, message: string): void;
}

/**
 * The database of a service's own process (auth, contacts-api), as production runs it: migrated
 * only with MIGRATE_ON_START; one that does not exist, refuses the credentials or is not migrated
 * rejects with an EnvironmentError (a paragraph naming DATABASE_URL without its password, the
 * cause and the remedy: the service refuses to start with it); one that is down may come back
 * (it may be starting too), so the service starts, logging each attempt, and /readyz answers 503
 * until it answers.
 */
export async function openOwnServiceDatabase(
  name: string,
  runtime: ServiceRuntime,
  log: ServiceStartLog,
  dataDir: string = dataDirectory(),
): Promise<ServiceDatabase> {
  try {
    return await openServiceDatabase({
      settings: { ...runtime.database, dataDir },
      applicationName: name,
      log: (message) => log.info(message),
      // knex's own lines ("Acquire connection error", one per attempt, twice a second per process
      // while the database is away) repeat what the failed requests, /readyz and the listeners'
      // reconnect lines (with db_code) already say.
      driverLog: (message) => log.debug(message),
      ...(runtime.migrateOnStart ? { migrate: true } : {}),
      service: {
        name,
        unreachable: (error) =>
          log.warn({ err: error }, 'database not reachable yet; starting anyway, /readyz answers 503 until it is'),
      },
    });
  } catch (error) {
    throw new EnvironmentError(explainDatabaseFailure(error, runtime.database.url, { embeddedAlternative: false }));
  }
}
