import type { Database } from '../connection';
import type { PersonalAccessTokenRow } from './personal-access-tokens';

/** The personal tokens, not yet revoked nor expired, stored under any of these hashes. */
export async function findLivePersonalAccessTokensByHash(
  db: Database,
  hashes: string[],
): Promise<Array<Pick<PersonalAccessTokenRow, 'id' | 'member_id' | 'grant_id'>>> {
  if (hashes.length === 0) return [];
  return db<PersonalAccessTokenRow>('personal_access_tokens')
    .whereIn('token_hash', hashes)
    .whereNull('revoked_at')
    .andWhere('expires_at', '>', db.fn.now())
    .select('id', 'member_id', 'grant_id');
}
