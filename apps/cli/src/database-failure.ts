import { EmbeddedDatabaseError, isDatabaseUnavailable } from '@contacts/db';

/**
 * One paragraph for a person: why the database could not be opened and what to do about it.
 * Never a stack trace — the causes here are the machine's, not a bug in the code.
 * `databaseUrl`: the validated DATABASE_URL, undefined for the embedded database.
 */
export function explainDatabaseFailure(error: unknown, databaseUrl: string | undefined): string {
  if (error instanceof EmbeddedDatabaseError) return `could not start the embedded database: ${error.message}`;
  const code = codeOf(error);
  if (databaseUrl && code === 'ENOTFOUND') {
    // Not "unavailable": no server will ever answer at a name that does not exist.
    const host = URL.parse(databaseUrl)?.hostname || 'localhost';
    return (
      `could not connect to the database named by DATABASE_URL (${where(databaseUrl)}): the host "${host}" was not ` +
      `found (${reason(error)}). Correct the host name in DATABASE_URL, or unset DATABASE_URL to use the embedded database.`
    );
  }
  if (databaseUrl && isDatabaseUnavailable(error)) {
    return (
      `could not connect to the database named by DATABASE_URL (${where(databaseUrl)}): ${reason(error)}. ` +
      'Check that the server runs and accepts connections, or unset DATABASE_URL to use the embedded database.'
    );
  }
  if (code === '28P01' || code === '28000') {
    return `the database refused the credentials in DATABASE_URL (${reason(error)}). Correct the user name or password.`;
  }
  if (code === '3D000') return `${reason(error)}. Create that database, or point DATABASE_URL at an existing one.`;
  return `could not open the database: ${reason(error)}.`;
}

/** Host, port and database of a URL, without its credentials. */
function where(url: string): string {
  const parsed = URL.parse(url);
  return parsed ? `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}` : 'an unreadable URL';
}

/** The error's code, or its cause's (knex passes pg's connection errors on as they are, or as a cause). */
function codeOf(error: unknown): unknown {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: unknown };
  return code ?? (cause === undefined ? undefined : codeOf(cause));
}

function reason(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message.length > 0 ? message : String(code ?? error);
  return text.split('\n')[0] ?? text;
}
