import type { Database } from './connection';
import { pendingMigrations } from './migrate';

/** Readiness of the database for a service: reachable, and its schema current. */
export async function databaseProblem(db: Database): Promise<string | undefined> {
  let pending: string[];
  try {
    pending = await pendingMigrations(db);
  } catch {
    return 'database unreachable';
  }
  return pending.length > 0 ? `migrations pending: ${pending.join(', ')}` : undefined;
}
