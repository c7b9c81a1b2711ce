import type pg from 'pg';
import type { Database } from './connection';

/**
 * Names a query as a prepared statement: each connection parses and plans it once and then
 * only binds and executes it. For the hot paths (one contact, a page, a create, the token
 * lookups of the authorization server) planning costs PostgreSQL more than running the query.
 *
 * Rules for a named statement: its SQL text must be the same on every call (same columns,
 * every value a binding), since the name stands for that text on each pooled connection; and
 * it must list its result columns rather than select `*`, so that a migration adding a column
 * does not fail running replicas with "cached plan must not change result type".
 */
export function preparedAs(name: string): { name: string } {
  return { name };
}

/**
 * Runs a named prepared statement written out in SQL (`$1`, `$2`, … placeholders) straight on a
 * connection of the pool, or of the transaction when `db` is one (a knex transaction hands out
 * its own connection). For the few statements every request runs: knex's query builder and
 * runner cost more CPU than the statement itself there.
 */
export async function queryPrepared<Row>(db: Database, name: string, text: string, values: unknown[]): Promise<Row[]> {
  const connection = (await db.client.acquireConnection()) as pg.ClientBase;
  try {
    return (await connection.query<Row & pg.QueryResultRow>({ name, text, values })).rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
