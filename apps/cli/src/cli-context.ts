import { type Database, openServiceDatabase } from '@contacts/db';

/** A mistake in the command line or its values: reported on stderr, exit code 2, nothing written. */
export class UsageError extends Error {}

export interface CommandContext {
  db: Database;
  env: NodeJS.ProcessEnv;
}

export type CommandResult = Record<string, unknown>;

/**
 * Opens the database for one command: DATABASE_URL, or the embedded database (connecting to
 * the one `pnpm start` runs, or starting it for the duration of the command).
 */
export async function withCommandContext<T>(
  env: NodeJS.ProcessEnv,
  work: (context: CommandContext) => Promise<T>,
): Promise<T> {
  const log = env.CLI_DEBUG ? (message: string) => process.stderr.write(`${message}\n`) : () => {};
  const database = await openServiceDatabase({ env, applicationName: 'cli', log });
  try {
    return await work({ db: database.db, env });
  } finally {
    await database.close();
  }
}
