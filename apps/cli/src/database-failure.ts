import { EmbeddedDatabaseError, isDatabaseUnavailable } from '@contacts/db';

/**
 * One paragraph for a person: why the database could not be opened and what to do about it.
 * Never a stack trace — the causes here are the machine's, not a bug in the code.
 */
export function explainDatabaseFailure(error: unknown, env: NodeJS.ProcessEnv): string {
  if (error instanceof EmbeddedDatabaseError) return `could not start the embedded database: ${error.message}`;
  if (env.DATABASE_URL && isDatabaseUnavailable(error)) {
    return (
      `could not connect to the database named by DATABASE_URL (${where(env.DATABASE_URL)}): ${reason(error)}. ` +
      'Check that the server runs and accepts connections, or unset DATABASE_URL to use the embedded database.'
    );
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '28P01' || code === '28000') {
    return `the database refused the credentials in DATABASE_URL (${reason(error)}). Correct the user name or password.`;
  }
  if (code === '3D000') return `${reason(error)}. Create that database, or point DATABASE_URL at an existing one.`;
  return `could not open the database: ${reason(error)}.`;
}

/** Host, port and database of a URL, without its credentials. */
function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}

function reason(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message.length > 0 ? message : String(code ?? error);
  return text.split('\n')[0] ?? text;
}
