import type { Database } from '../connection';

export interface MemberRow {
  id: number;
  email: string;
  name: string;
  password_hash: string;
  created_at: Date;
  updated_at: Date;
}

export type PublicMember = Pick<MemberRow, 'id' | 'email' | 'name'>;

export async function insertMember(
  db: Database,
  member: Pick<MemberRow, 'email' | 'name' | 'password_hash'>,
): Promise<PublicMember> {
  const [row] = await db<MemberRow>('members').insert(member).returning(['id', 'email', 'name']);
  return row as PublicMember;
}

export async function findMemberById(db: Database, id: number): Promise<MemberRow | undefined> {
  return db<MemberRow>('members').where({ id }).first();
}

/** E-mail addresses compare case-insensitively, as the unique index does. */
export async function findMemberByEmail(db: Database, email: string): Promise<MemberRow | undefined> {
  // PostgreSQL text cannot hold NUL (it refuses the query): no member has such an address.
  if (email.includes('\u0000')) return undefined;
  return db<MemberRow>('members').whereRaw('lower(email) = lower(?)', [email]).first();
}
