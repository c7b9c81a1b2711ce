import type { Database } from '../connection';

export interface MemberSessionRow {
  id_hash: string;
  member_id: number;
  created_at: Date;
  expires_at: Date;
  user_agent?: string | null;
  ip?: string | null;
}

export async function insertMemberSession(
  db: Database,
  session: Pick<MemberSessionRow, 'id_hash' | 'member_id' | 'expires_at' | 'user_agent' | 'ip'>,
) {
  await db('member_sessions').insert(session);
}

/** The member signed in with this session, if it exists and has not expired. */
export async function findMemberSession(db: Database, idHash: string): Promise<MemberSessionRow | undefined> {
  return db<MemberSessionRow>('member_sessions')
    .where({ id_hash: idHash })
    .andWhere('expires_at', '>', db.fn.now())
    .first();
}

export async function deleteMemberSession(db: Database, idHash: string): Promise<void> {
  await db('member_sessions').where({ id_hash: idHash }).delete();
}
