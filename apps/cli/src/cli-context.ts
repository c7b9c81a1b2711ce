import { type Audit, auditTrail } from '@contacts/auth';
import { createLogger } from '@contacts/config';
import { type Database, openServiceDatabase, pendingMigrations } from '@contacts/db';
import { explainDatabaseFailure } from './database-failure';

/** A mistake in the command line or its values: reported on stderr, exit code 2, nothing written. */
export class UsageError extends Error {}

/** The database could not be opened or is not ready for the command: one paragraph on stderr, exit code 1. */
export class DatabaseNotReadyError extends Error {}

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
 */
export async function withCommandContext<T>(
  env: NodeJS.ProcessEnv,
  options: { needsCurrentSchema: boolean },
  work: (context: CommandContext) => Promise<T>,
): Promise<T> {
  const log = env.CLI_DEBUG ? (message: string) => process.stderr.write(`${message}\n`) : () => {};
  const database = await openServiceDatabase({ env, applicationName: 'cli', log }).catch((error: unknown) => {
    throw new DatabaseNotReadyError(explainDatabaseFailure(error, env));
  });
  try {
    if (options.needsCurrentSchema) await requireCurrentSchema(database.db);
    const logger = createLogger('cli', { ...env, LOG_LEVEL: env.LOG_LEVEL ?? 'silent' });
    return await work({ db: database.db, env, audit: auditTrail(database.db, logger) });
  } finally {
    await database.close();
  }
}

async function requireCurrentSchema(db: Database): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length === 0) return;
  const state = (await db.schema.hasTable('members'))
    ? `is behind: ${pending.length} migration(s) not applied (${pending.join(', ')})`
    : 'has not been migrated: it has none of the tables this command needs';
  throw new DatabaseNotReadyError(
    `the database in DATABASE_URL ${state}. ` +
      'Run `pnpm -s cli migrate latest` with the same DATABASE_URL to bring it up to date (it is safe to run ' +
      'while the services run), then run this command again.',
  );
}
