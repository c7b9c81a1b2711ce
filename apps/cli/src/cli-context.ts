import { type Audit, auditTrail } from '@contacts/auth';
import {
  createLogger,
  databaseSettingsFrom,
  describeMisspelling,
  environmentWith,
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
  const { settings, logger } = (() => {
    try {
      options.readSettings?.(reads.env);
      return {
        settings: { ...databaseSettingsFrom(reads.env), dataDir: dataDirectory(reads.env) },
        // The CLI logs nothing unless asked, and then on stderr: its stdout is the command's one JSON
        // document, whatever LOG_LEVEL a deployment sets for every process (docker-compose's migrate).
        logger: createLogger(
          'cli',
          environmentWith(reads.env, { LOG_LEVEL: reads.env.LOG_LEVEL || 'silent' }),
          process.stderr,
        ),
      };
    } catch (error) {
      throw withMisspellingHints(error, reads);
    }
  })();
  // Progress (and knex's own messages) on stderr, with CLI_DEBUG=1 only.
  const log = reads.env.CLI_DEBUG ? (message: string) => process.stderr.write(`${message}\n`) : () => {};
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
