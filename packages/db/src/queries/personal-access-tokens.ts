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

export async function insertPersonalAccessToken(
  db: Database,
  token: Pick<PersonalAccessTokenRow, 'member_id' | 'name' | 'token_hash' | 'grant_id' | 'scopes' | 'expires_at'>,
): Promise<PersonalAccessTokenRow> {
  const [row] = await db<PersonalAccessTokenRow>('personal_access_tokens').insert(token).returning('*');
  return row as PersonalAccessTokenRow;
}

export async function listPersonalAccessTokensOf(db: Database, memberId: number): Promise<PersonalAccessTokenRow[]> {
  return db<PersonalAccessTokenRow>('personal_access_tokens')
    .where({ member_id: memberId })
    .orderBy('created_at', 'desc');
}

export async function findPersonalAccessToken(
  db: Database,
  memberId: number,
  id: number,
): Promise<PersonalAccessTokenRow | undefined> {
  return db<PersonalAccessTokenRow>('personal_access_tokens').where({ member_id: memberId, id }).first();
}

/** Marks the token revoked; false when it was already revoked (so only one caller revokes it). */
export async function markPersonalAccessTokenRevoked(db: Database, id: number): Promise<boolean> {
  const updated = await db('personal_access_tokens')
    .where({ id })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  return updated > 0;
}

/**
 * Records use, at most once a minute per token so that a busy script does not write on every
 * call. Returns the token when this was its first use ever (worth an audit event).
 */
export async function touchPersonalAccessToken(
  db: Database,
  tokenHashValue: string,
): Promise<Pick<PersonalAccessTokenRow, 'id' | 'member_id' | 'name'> | undefined> {
  const [first] = await db('personal_access_tokens')
    .where({ token_hash: tokenHashValue })
    .whereNull('last_used_at')
    .update({ last_used_at: db.fn.now() })
    .returning(['id', 'member_id', 'name']);
  if (first) return first as Pick<PersonalAccessTokenRow, 'id' | 'member_id' | 'name'>;
  await db('personal_access_tokens')
    .where({ token_hash: tokenHashValue })
    .andWhere('last_used_at', '<', db.raw("now() - interval '1 minute'"))
    .update({ last_used_at: db.fn.now() });
  return undefined;
}

/** A token by id alone (administration), whoever it belongs to. */
export async function findPersonalAccessTokenById(
  db: Database,
  id: number,
): Promise<PersonalAccessTokenRow | undefined> {
  return db<PersonalAccessTokenRow>('personal_access_tokens').where({ id }).first();
}

/** One page of tokens by id (optionally one member's): up to `limit` + 1 rows. */
export async function listPersonalAccessTokensPage(
  db: Database,
  page: { limit: number; after?: number; memberId?: number },
): Promise<PersonalAccessTokenRow[]> {
  const query = db<PersonalAccessTokenRow>('personal_access_tokens')
    .orderBy('id')
    .limit(page.limit + 1);
  if (page.after !== undefined) query.where('id', '>', page.after);
  if (page.memberId !== undefined) query.where({ member_id: page.memberId });
  return query;
}
