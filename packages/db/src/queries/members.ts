import type { Database } from '../connection';
import { preparedAs } from '../prepared';

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

const MEMBER_COLUMNS: Array<keyof MemberRow> = ['id', 'email', 'name', 'password_hash', 'created_at', 'updated_at'];

/** Every token request looks its member up (oidc-provider's findAccount): a prepared statement. */
export async function findMemberById(db: Database, id: number): Promise<MemberRow | undefined> {
  return db('members')
    .where({ id })
    .first<MemberRow | undefined>(MEMBER_COLUMNS)
    .options(preparedAs('members.find-by-id'));
}

/** E-mail addresses compare case-insensitively, as the unique index does. */
export async function findMemberByEmail(db: Database, email: string): Promise<MemberRow | undefined> {
  // PostgreSQL text cannot hold NUL (it refuses the query): no member has such an address.
  if (email.includes('\u0000')) return undefined;
  return db<MemberRow>('members').whereRaw('lower(email) = lower(?)', [email]).first();
}
