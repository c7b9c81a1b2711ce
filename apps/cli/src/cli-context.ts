import { type Audit, auditTrail } from '@contacts/auth';
import {
  createLogger,
  type DatabaseSettings,
  databaseSettingsFrom,
  describeMisspelling,
  environmentWith,
  type Logger,
  SettingReads,
  withMisspellingHints,
} from '@contacts/config';
import {
  type Database,
  DatabaseNotReadyError,
  dataDirectory,
  explainDatabaseFailure,
  openServiceDatabase,
  requireCurrentSchema,
} from '@contacts/db';

/** A mistake in the command line or its values: reported on stderr, exit code 2, nothing written. */
export class UsageError extends Error {}

/** The database could not be opened or is not ready for the command: one paragraph on stderr, exit code 1. */
export { DatabaseNotReadyError };

export interface CommandContext {
  db: Database;
  env: NodeJS.ProcessEnv;
  /** Records security events as the settings pages do (visible at /settings/security). */
  audit: Audit;
}

export type CommandResult = Record<string, unknown>;

/**
 * Opens the database for one command: DATABASE_URL, or the embedded database (connecting to
 * the one `pnpm start` runs, or starting it for the duration of the command; the embedded one
 * is migrated on opening, as `pnpm start` does). An external database that is behind its
 * migrations is refused before the command runs, unless the command is the migration itself.
 * The settings (DATABASE_URL, EMBEDDED_PG_PORT, DB_POOL_MAX, LOG_LEVEL) are read first: a
 * malformed one throws its ConfigError before anything is opened.
 */
export async function withCommandContext<T>(
  env: NodeJS.ProcessEnv,
  options: { needsCurrentSchema: boolean; readSettings?: ((env: NodeJS.ProcessEnv) => unknown) | undefined },
  work: (context: CommandContext) => Promise<T>,
): Promise<T> {
  const reads = new SettingReads(env);
  const { settings, logger, debug } = (() => {
    try {
      return readCommandSettings(reads.env, options.readSettings);
    } catch (error) {
      throw withMisspellingHints(error, reads);
    }
  })();
  // Progress (and knex's own messages) on stderr, with CLI_DEBUG=1 only.
  const log = debug ? (message: string) => process.stderr.write(`${message}\n`) : () => {};
  // Said always: why a command lingers (waiting for another that uses the database it started).
  const warn = (message: string) => process.stderr.write(`${message}\n`);
  // Before the database opens: DATABSE_URL would otherwise have the command change the embedded one.
  for (const misspelling of reads.misspellings()) warn(`warning: ${describeMisspelling(misspelling)}`);
  const database = await openServiceDatabase({ settings, applicationName: 'cli', command: true, log, warn }).catch(
    (error: unknown) => {
      throw new DatabaseNotReadyError(explainDatabaseFailure(error, settings.url));
    },
  );
  try {
    if (options.needsCurrentSchema)
      await requireCurrentSchema(database.db, settings.url, {
        needs: 'this command needs',
        afterwards: 'run this command again',
      });
    return await work({ db: database.db, env, audit: auditTrail(database.db, logger) });
  } finally {
    await database.close();
  }
}

/** What a command has read before anything opens. */
export interface CommandSettings {
  settings: DatabaseSettings & { dataDir: string };
  logger: Logger;
  /** CLI_DEBUG: progress on stderr. */
  debug: boolean;
}

/**
 * Every setting a command reads, all before anything opens: the command's own (readSettings),
 * the database's, DATA_DIR, LOG_LEVEL and CLI_DEBUG. One function, so that the settings registry
 * (settings-registry.ts) finds what the CLI reads by running it.
 */
export function readCommandSettings(
  env: NodeJS.ProcessEnv,
  readSettings?: ((env: NodeJS.ProcessEnv) => unknown) | undefined,
): CommandSettings {
  readSettings?.(env);
  return {
    settings: { ...databaseSettingsFrom(env), dataDir: dataDirectory(env) },
    // The CLI logs nothing unless asked, and then on stderr: its stdout is the command's one JSON
    // document, whatever LOG_LEVEL a deployment sets for every process (docker-compose's migrate).
    logger: createLogger('cli', environmentWith(env, { LOG_LEVEL: env.LOG_LEVEL || 'silent' }), process.stderr),
    debug: Boolean(env.CLI_DEBUG),
  };
}
