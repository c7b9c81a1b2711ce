import type { Database } from '../connection';
import { RETENTION_RULES } from './rules';

/** The tables that gain rows with traffic: what the janitor keeps bounded. */
export const GROWING_TABLES: readonly string[] = [...new Set(RETENTION_RULES.map((rule) => rule.table))];

/**
 * Estimated row counts of the growing tables, from PostgreSQL's statistics (live tuples, kept
 * current by every commit): one catalogue read, however large the tables, so a metrics scrape
 * may ask each time, unlike count(*).
 */
export async function estimatedTableRows(db: Database): Promise<Record<string, number>> {
  const { rows } = await db.raw<{ rows: Array<{ table: string; rows: number }> }>(
    `select relname as "table", n_live_tup as rows from pg_stat_user_tables
      where schemaname = current_schema() and relname = any(?)`,
    [[...GROWING_TABLES]],
  );
  return Object.fromEntries(rows.map((row) => [row.table, row.rows]));
}
