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

/**
 * Every token request looks its member up (oidc-provider's findAccount): a prepared statement.
 * A disabled member is not found: no new token, consent or settings session for them.
 */
export async function findMemberById(db: Database, id: number): Promise<MemberRow | undefined> {
  return db('members')
    .where({ id })
    .whereNull('disabled_at')
    .first<MemberRow | undefined>(MEMBER_COLUMNS)
    .options(preparedAs('members.find-by-id'));
}

/**
 * Locks the member's row until the transaction ends, disabled or not; false when there is none.
 * Writers that keep a per-member count within a limit (applications, personal tokens) take it
 * first, so that two of them at once count one after the other.
 */
export async function lockMember(trx: Database, id: number): Promise<boolean> {
  return (await trx('members').where({ id }).forUpdate().first('id')) !== undefined;
}

/**
 * E-mail addresses compare case-insensitively, as the unique index does. A disabled member is
 * not found, so they cannot sign in (and the attempt looks like any unknown address).
 */
export async function findMemberByEmail(db: Database, email: string): Promise<MemberRow | undefined> {
  const member = await findSignInMember(db, email);
  if (member === undefined || member.disabled_at !== null) return undefined;
  const { disabled_at: _enabled, ...row } = member;
  return row;
}

/**
 * The member a sign-in names, disabled or not (`disabled_at`): sign-in checks the password of a
 * disabled member too, so that whoever knows it is told the account is disabled rather than that
 * the password is wrong, with the same work done either way.
 */
export async function findSignInMember(
  db: Database,
  email: string,
): Promise<(MemberRow & { disabled_at: Date | null }) | undefined> {
  return membersWithAddress(db, email)?.first([...MEMBER_COLUMNS, 'disabled_at']);
}

/**
 * The members row with this address as typed, compared as FOLDED_EMAIL says; none for an address
 * PostgreSQL text cannot hold (NUL: it refuses the query), which no member has.
 */
function membersWithAddress(db: Database, email: string) {
  if (email.includes('\u0000')) return undefined;
  return db('members').whereRaw(`lower(email) = ${FOLDED_EMAIL}`, [email.normalize('NFC')]);
}

/**
 * How a typed address is compared with the stored ones: PostgreSQL's lower(), as the unique
 * index, of its composed form (NFC), the form in which the pages and the CLI store addresses.
 */
const FOLDED_EMAIL = 'lower(?::text)';

/** What an administrator sees of a member, disabled or not; never the password hash. */
export interface MemberRecord extends PublicMember {
  created_at: Date;
  disabled_at: Date | null;
}

const RECORD_COLUMNS = ['id', 'email', 'name', 'created_at', 'disabled_at'];

/** A member whether disabled or not (administration only; the product uses findMemberById). */
export async function findMemberRecord(db: Database, id: number): Promise<MemberRecord | undefined> {
  return db('members').where({ id }).first<MemberRecord | undefined>(RECORD_COLUMNS);
}

/** A member by e-mail address, disabled or not, compared as at sign-in (administration only). */
export async function findMemberRecordByEmail(db: Database, email: string): Promise<MemberRecord | undefined> {
  return membersWithAddress(db, email)?.first<MemberRecord | undefined>(RECORD_COLUMNS);
}

/** One page of members by id: up to `limit` + 1 rows, the extra one telling that more follow. */
export async function listMembersPage(db: Database, page: { limit: number; after?: number }): Promise<MemberRecord[]> {
  const query = db('members')
    .select<MemberRecord[]>(RECORD_COLUMNS)
    .orderBy('id')
    .limit(page.limit + 1);
  if (page.after !== undefined) query.where('id', '>', page.after);
  return query;
}

export async function updateMemberPasswordHash(db: Database, id: number, passwordHash: string): Promise<boolean> {
  return (await db('members').where({ id }).update({ password_hash: passwordHash, updated_at: db.fn.now() })) > 0;
}

/**
 * Sets or clears disabled_at; returns the member as it is afterwards. Disabling a disabled member
 * keeps the moment it was first disabled (the record of when access ended).
 */
export async function setMemberDisabled(
  db: Database,
  id: number,
  disabled: boolean,
): Promise<MemberRecord | undefined> {
  const [row] = await db('members')
    .where({ id })
    .update({ disabled_at: disabled ? db.raw('coalesce(disabled_at, now())') : null, updated_at: db.fn.now() })
    .returning(RECORD_COLUMNS);
  return row as MemberRecord | undefined;
}

/** Clients holding a consent, code or token of this member (which revoking all of them must visit). */
export async function listClientIdsWithModelsOf(db: Database, memberId: number): Promise<string[]> {
  const rows: Array<{ client_id: string }> = await db('oidc_models')
    .where({ account_id: String(memberId) })
    .distinct('client_id')
    .orderBy('client_id');
  return rows.map((row) => row.client_id);
}
