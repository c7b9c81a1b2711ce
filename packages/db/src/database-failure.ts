import type { Database } from './connection';
import { EmbeddedDatabaseError } from './embedded-postgres-process';
import { pendingMigrations } from './migrate';
import { isDatabaseUnavailable } from './unavailable';

/**
 * The database cannot serve this process, for a reason a person has to fix (it does not
 * exist, refuses the credentials, is not migrated…). Its message is one paragraph for them.
 */
export class DatabaseNotReadyError extends Error {
  override name = 'DatabaseNotReadyError';
}

export interface ExplainOptions {
  /** Whether to offer unsetting DATABASE_URL (the embedded database) as a remedy; the services' images have none. */
  embeddedAlternative?: boolean;
}

/**
 * One paragraph for a person: why the database could not be opened and what to do about it.
 * Never a stack trace — the causes here are the machine's, not a bug in the code.
 * `databaseUrl`: the validated DATABASE_URL, undefined for the embedded database; the
 * paragraph names its host, port and database, never its credentials.
 */
export function explainDatabaseFailure(
  error: unknown,
  databaseUrl: string | undefined,
  options: ExplainOptions = {},
): string {
  if (error instanceof DatabaseNotReadyError) return error.message;
  if (error instanceof EmbeddedDatabaseError) return `could not start the embedded database: ${error.message}`;
  const orEmbedded =
    options.embeddedAlternative === false ? '' : ', or unset DATABASE_URL to use the embedded database';
  const code = codeOf(error);
  if (databaseUrl && code === 'ENOTFOUND') {
    // Not "unavailable": no server will ever answer at a name that does not exist.
    const host = URL.parse(databaseUrl)?.hostname || 'localhost';
    return (
      `could not connect to the database named by DATABASE_URL (${where(databaseUrl)}): the host "${host}" was not ` +
      `found (${reason(error)}). Correct the host name in DATABASE_URL${orEmbedded}.`
    );
  }
  if (databaseUrl && isDatabaseUnavailable(error)) {
    return (
      `could not connect to the database named by DATABASE_URL (${where(databaseUrl)}): ${reason(error)}. ` +
      `Check that the server runs and accepts connections${orEmbedded}.`
    );
  }
  const named = databaseUrl ? `the database named by DATABASE_URL (${where(databaseUrl)})` : 'the database';
  if (code === '28P01' || code === '28000') {
    return `${named} refused its credentials (${reason(error)}). Correct the user name or password in DATABASE_URL.`;
  }
  if (code === '3D000') {
    return `could not open ${named}: ${reason(error)}. Create that database, or point DATABASE_URL at an existing one.`;
  }
  return `could not open ${named}: ${reason(error)}.`;
}

/** Who reads the refusal of a database that is behind its migrations, and what they do once it is migrated. */
export interface SchemaRefusal {
  /** Ends "it has none of the tables …": `this command needs`. */
  needs: string;
  /** Ends "bring it up to date (…), then …": `run this command again`. */
  afterwards: string;
  /** Said inside the parentheses after "it is safe to run while the services run", e.g. the compose step. */
  aside?: string;
  explain?: ExplainOptions;
  /**
   * A database that cannot be reached right now (see isDatabaseUnavailable) is handed here
   * instead of refused, and the schema is not checked: a service starts and keeps trying.
   */
  whenUnreachable?: (error: unknown) => void;
}

/**
 * Refuses (DatabaseNotReadyError) a database that cannot be opened, or whose schema is not
 * the code's: never migrated, or behind. The check of the CLI's commands and of the services'
 * start; the migration itself is the remedy it names.
 */
export async function requireCurrentSchema(
  db: Database,
  databaseUrl: string | undefined,
  refusal: SchemaRefusal,
): Promise<void> {
  let pending: string[];
  try {
    // The first query on an external database: a server that is down or unknown is explained here.
    pending = await pendingMigrations(db);
  } catch (error) {
    if (refusal.whenUnreachable && isDatabaseUnavailable(error)) {
      refusal.whenUnreachable(error);
      return;
    }
    throw new DatabaseNotReadyError(explainDatabaseFailure(error, databaseUrl, refusal.explain), { cause: error });
  }
  if (pending.length === 0) return;
  const state = (await db.schema.hasTable('members'))
    ? `is behind: ${pending.length} migration(s) not applied (${pending.join(', ')})`
    : `has not been migrated: it has none of the tables ${refusal.needs}`;
  throw new DatabaseNotReadyError(
    `the database in DATABASE_URL ${state}. ` +
      'Run `pnpm -s cli migrate latest` with the same DATABASE_URL to bring it up to date (it is safe to run ' +
      `while the services run${refusal.aside ? `; ${refusal.aside}` : ''}), then ${refusal.afterwards}.`,
  );
}

/**
 * For a log line's `err`: a failure to reach or open the database as its first line and its
 * code (`db_code`: the loggers redact any field named `code`), without the stack, which names
 * only the driver's parser or Node's socket and would repeat on every reconnect attempt.
 * Undefined for any other error, whose stack is worth its lines.
 */
export function databaseFailureForLog(error: unknown): { type: string; message: string; db_code?: string } | undefined {
  const code = codeOf(error);
  const opening = typeof code === 'string' && (OPENING_CODES.has(code) || /^(08|28|3D|57P)/.test(code));
  if (!(opening || isDatabaseUnavailable(error)) || !(error instanceof Error)) return undefined;
  return {
    type: error.constructor.name,
    message: reason(error),
    ...(typeof code === 'string' ? { db_code: code } : {}),
  };
}

/** Codes of an open that failed for good; isDatabaseUnavailable knows those that heal. */
const OPENING_CODES = new Set(['ENOTFOUND', '42501']);

/** Host, port and database of a URL, without its credentials. */
function where(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}` : 'an unreadable URL';
}

/** The error's code, or its cause's (knex passes pg's connection errors on as they are, or as a cause). */
function codeOf(error: unknown, depth = 0): unknown {
  if (error === null || typeof error !== 'object' || depth > 4) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  return code ?? codeOf(cause, depth + 1);
}

function reason(error: unknown): string {
  // knex's own words ("The pool is probably full. Are you missing a .transacting(trx) call?")
  // are about a bug in the calling code; at an open, the server took the connection and said nothing.
  if ((error as { name?: unknown } | null)?.name === 'KnexTimeoutError') {
    return 'the server accepted the connection but did not answer in time (a server still starting or overloaded, or a proxy or firewall holding the connection)';
  }
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message.length > 0 ? message : String(code ?? error);
  return text.split('\n')[0] ?? text;
}
