import type { Database } from '../connection';

export interface PersonalAccessTokenRow {
  id: number;
  member_id: number;
  name: string;
  token_hash: string;
  grant_id: string;
  scopes: string[];
  expires_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

/**
 * `form_id`: the settings form the token was created from (migration 20261124000000_creation_form_ids);
 * a second token from the same form fails with a unique violation (isDuplicateFormId).
 */
/** A token's columns, as callers see them: the form id stays inside this module's queries. */
const TOKEN_COLUMNS: Array<keyof PersonalAccessTokenRow> = [
  'id',
  'member_id',
  'name',
  'token_hash',
  'grant_id',
  'scopes',
  'expires_at',
  'last_used_at',
  'revoked_at',
  'created_at',
];

export async function insertPersonalAccessToken(
  db: Database,
  token: Pick<PersonalAccessTokenRow, 'member_id' | 'name' | 'token_hash' | 'grant_id' | 'scopes' | 'expires_at'> & {
    form_id?: string;
  },
): Promise<PersonalAccessTokenRow> {
  const [row] = await db<PersonalAccessTokenRow>('personal_access_tokens').insert(token).returning(TOKEN_COLUMNS);
  return row as PersonalAccessTokenRow;
}

/** The token this member created from this settings form, if any. */
export async function findPersonalAccessTokenByFormId(
  db: Database,
  memberId: number,
  formId: string,
): Promise<PersonalAccessTokenRow | undefined> {
  return db('personal_access_tokens')
    .where({ member_id: memberId, form_id: formId })
    .first<PersonalAccessTokenRow | undefined>(TOKEN_COLUMNS);
}

/** Whether a database error is the uniqueness violation of a settings form id: that form already created its row. */
export function isDuplicateFormId(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return (
    code === '23505' &&
    (constraint === 'personal_access_tokens_member_form_id_unique' ||
      constraint === 'oauth_clients_owner_form_id_unique')
  );
}

/** The member's personal tokens as the settings page lists them: live, revoked or recently expired (until the janitor). */
export async function countPersonalAccessTokensOf(db: Database, memberId: number): Promise<number> {
  const row = await db('personal_access_tokens')
    .where({ member_id: memberId })
    .count<{ count: string }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

export async function listPersonalAccessTokensOf(db: Database, memberId: number): Promise<PersonalAccessTokenRow[]> {
  return db<PersonalAccessTokenRow>('personal_access_tokens')
    .select(TOKEN_COLUMNS)
    .where({ member_id: memberId })
    .orderBy('created_at', 'desc');
}

export async function findPersonalAccessToken(
  db: Database,
  memberId: number,
  id: number,
): Promise<PersonalAccessTokenRow | undefined> {
  return db<PersonalAccessTokenRow>('personal_access_tokens').where({ member_id: memberId, id }).first(TOKEN_COLUMNS);
}

/** Marks the token revoked; false when it was already revoked (so only one caller revokes it). */
export async function markPersonalAccessTokenRevoked(db: Database, id: number): Promise<boolean> {
  const updated = await db('personal_access_tokens')
    .where({ id })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  return updated > 0;
}

/** A token's id, member and name: what an audit event about it names. */
type TokenOwner = Pick<PersonalAccessTokenRow, 'id' | 'member_id' | 'name'>;

/**
 * Records use, at most once a minute per token so that a busy script does not write on every
 * call. Returns the token when this was its first use ever (worth an audit event).
 */
export async function touchPersonalAccessToken(db: Database, tokenHashValue: string): Promise<TokenOwner | undefined> {
  // One statement. `before` is the row as this statement's snapshot saw it, which tells a first
  // use apart; the conditions on `t` are what PostgreSQL checks again when a concurrent touch
  // updated the row first, so of racing first uses exactly one writes, and reports it.
  const { rows } = await db.raw<{ rows: Array<TokenOwner & { first_use: boolean }> }>(
    `update personal_access_tokens as t
        set last_used_at = now()
       from personal_access_tokens as before
      where before.id = t.id
        and t.token_hash = ?
        and (t.last_used_at is null or t.last_used_at < now() - interval '1 minute')
      returning t.id, t.member_id, t.name, before.last_used_at is null as first_use`,
    [tokenHashValue],
  );
  const [touched] = rows;
  return touched?.first_use ? { id: touched.id, member_id: touched.member_id, name: touched.name } : undefined;
}

/** A token by id alone (administration), whoever it belongs to. */
export async function findPersonalAccessTokenById(
  db: Database,
  id: number,
): Promise<PersonalAccessTokenRow | undefined> {
  return db<PersonalAccessTokenRow>('personal_access_tokens').where({ id }).first(TOKEN_COLUMNS);
}

/** One page of tokens by id (optionally one member's): up to `limit` + 1 rows. */
export async function listPersonalAccessTokensPage(
  db: Database,
  page: { limit: number; after?: number; memberId?: number },
): Promise<PersonalAccessTokenRow[]> {
  const query = db<PersonalAccessTokenRow>('personal_access_tokens')
    .select(TOKEN_COLUMNS)
    .orderBy('id')
    .limit(page.limit + 1);
  if (page.after !== undefined) query.where('id', '>', page.after);
  if (page.memberId !== undefined) query.where({ member_id: page.memberId });
  return query;
}
