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
