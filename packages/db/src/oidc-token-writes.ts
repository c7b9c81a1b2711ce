import type { Database } from './connection';
import { queryPrepared } from './prepared';
import { type PendingTokenRow, type PendingTokenWrites, takeTokenWrites } from './request-scope';

/**
 * Writes what a token request held back (request-scope.ts, PendingTokenWrites) in one statement:
 * the code or refresh token it consumes and the tokens it issues, all or nothing, with no
 * transaction around it (one round trip and one commit instead of BEGIN, three statements and
 * COMMIT). The consumption decides: the new tokens are stored only if this statement is the one
 * that consumed the old code or token. Of two requests racing with one refresh token, the second
 * waits on the row and then finds it consumed (READ COMMITTED re-checks the condition), so
 * exactly one of them stores its tokens.
 *
 * - written: everything is stored;
 * - consumed-already: the code or token was consumed by another request meanwhile, nothing
 *   is stored, and the tokens in the held-back answer must not be handed out;
 * - nothing: the request held nothing back.
 */
export type TokenWritesOutcome =
  | { outcome: 'written' | 'nothing' }
  | { outcome: 'consumed-already' /** the consumed code's or token's model */; model: string };

const COLUMNS = ['model', 'id_hash', 'payload', 'grant_id', 'uid', 'account_id', 'client_id', 'expires_at'] as const;
const COLUMN_TYPES = ['text', 'text', 'jsonb', 'text', 'text', 'text', 'text', 'timestamptz'] as const;

export async function flushTokenWrites(db: Database): Promise<TokenWritesOutcome> {
  const pending = takeTokenWrites();
  const rows = lastWritePerRow(pending.store);
  if (!pending.consume && rows.length === 0) return { outcome: 'nothing' };
  const { name, text, values } = tokenWritesStatement(pending.consume, rows);
  const [result] = await queryPrepared<{ consumed: boolean }>(db, name, text, values);
  if (pending.consume && result?.consumed === false)
    return { outcome: 'consumed-already', model: pending.consume.model };
  return { outcome: 'written' };
}

/**
 * The statement for one shape of writes (consume or not, with a grace period or not, n rows):
 * its text depends on the shape alone, so each shape is one named prepared statement.
 */
function tokenWritesStatement(
  consume: PendingTokenWrites['consume'],
  rows: PendingTokenRow[],
): { name: string; text: string; values: unknown[] } {
  const values: unknown[] = [];
  const bind = (value: unknown, type?: string) => {
    values.push(value);
    return type ? `$${values.length}::${type}` : `$${values.length}`;
  };
  const graced = consume !== undefined && consume.graceSeconds > 0;
  const ctes: string[] = [];
  if (consume) {
    const unconsumed = graced
      ? `(consumed_at is null or consumed_at > now() - make_interval(secs => ${bind(consume.graceSeconds, 'int')}))`
      : 'consumed_at is null';
    ctes.push(`consumed as (
      update oidc_models set consumed_at = coalesce(consumed_at, now())
      where model = ${bind(consume.model)} and id_hash = ${bind(consume.idHash)} and ${unconsumed}
      returning 1
    )`);
  }
  if (rows.length > 0) {
    const tuples = rows.map(
      (row) => `(${COLUMNS.map((column, index) => bind(row[column], COLUMN_TYPES[index])).join(', ')})`,
    );
    ctes.push(`stored as (
      insert into oidc_models (${COLUMNS.join(', ')})
      select * from (values ${tuples.join(', ')}) as v (${COLUMNS.join(', ')})
      ${consume ? 'where exists (select 1 from consumed)' : ''}
      on conflict (model, id_hash) do update set
        ${COLUMNS.filter((column) => column !== 'model' && column !== 'id_hash')
          .map((column) => `${column} = excluded.${column}`)
          .join(', ')}
    )`);
  }
  const text = `with ${ctes.join(', ')} select ${consume ? 'exists (select 1 from consumed)' : 'true'} as consumed`;
  const name = `oidc_models.write:${consume ? (graced ? 'consume-graced' : 'consume') : 'store'}:${rows.length}`;
  return { name, text, values };
}

/** A row written twice in one request is written once, with its last payload (one INSERT may not touch a row twice). */
function lastWritePerRow(rows: PendingTokenRow[]): PendingTokenRow[] {
  const byKey = new Map<string, PendingTokenRow>();
  for (const row of rows) byKey.set(`${row.model}\u0000${row.id_hash}`, row);
  return [...byKey.values()];
}
