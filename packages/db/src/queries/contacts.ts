import type { ContactChanges, ContactRecordLike, NewContact } from '@contacts/schemas';
import type { Knex } from 'knex';
import type { Database } from '../connection';
import { preparedAs, queryPrepared } from '../prepared';
import type {} from '../tables';
import {
  CONTACT_COLUMNS,
  FIND_RECORD,
  INSERT_RECORD,
  RECORD_JOINS,
  ROW_COLUMNS,
  WRITABLE_COLUMNS,
} from './contact-record-statements';

export type { ContactRow } from '@contacts/schemas';

/** A contact as the API shows it: the row plus the names joined in and whether it has an image. */
export type ContactRecord = ContactRecordLike;

/** Either the pool or a transaction: every query here runs inside a caller's transaction when it has one. */
export type Queryable = Database | Knex.Transaction;

export function recordQuery(db: Queryable) {
  return db('contacts as c')
    .leftJoin('business_categories as bc', 'bc.id', 'c.business_category_id')
    .leftJoin('members as r', 'r.id', 'c.referrer_id')
    .leftJoin('contact_images as ci', 'ci.contact_id', 'c.id')
    .select<ContactRecord[]>(
      ...CONTACT_COLUMNS.map((column) => `c.${column}`),
      'bc.name as business_category_name',
      'r.name as referrer_name',
      'ci.sha256 as image_sha256',
    );
}

// The two statements every read and every create of one contact runs (FIND_RECORD, INSERT_RECORD)
// are run by queryPrepared rather than built and run by knex: compiling the builder alone was an
// eighth of the API's CPU per create (profiled in pnpm bench). The lists keep recordQuery, whose
// filters vary.
export async function findContactRecord(
  db: Queryable,
  ownerId: number,
  id: number,
): Promise<ContactRecord | undefined> {
  const [record] = await queryPrepared<ContactRecord>(db, FIND_RECORD.name, FIND_RECORD.text, [ownerId, id]);
  return record;
}

/** The owner's contacts among `ids`, in id order (ids not theirs, or gone, are left out). */
export async function findContactRecords(
  db: Queryable,
  ownerId: number,
  ids: readonly number[],
): Promise<ContactRecord[]> {
  if (ids.length === 0) return [];
  return recordQuery(db)
    .where('c.owner_id', ownerId)
    .whereIn('c.id', [...new Set(ids)])
    .orderBy('c.id');
}

/**
 * Serialises, until the transaction ends, every transaction that looks up or writes this owner's
 * contact with this e-mail (case-insensitive): a transaction-scoped advisory lock, since a row
 * that does not exist yet cannot be locked.
 */
export async function lockOwnedContactEmail(trx: Knex.Transaction, ownerId: number, email: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(?, hashtext(lower(?)))', [ownerId, email]);
}

/** Whether the contact is linked to one of the member's groups (the member sees it as a guest). */
export async function isGroupGuestContact(db: Queryable, memberId: number, id: number): Promise<boolean> {
  const row = await db('contacts as c')
    .join('group_members as gm', 'gm.group_id', 'c.group_id')
    .where({ 'c.id': id, 'gm.member_id': memberId })
    .first('c.id');
  return row !== undefined;
}

/**
 * Locks the owner's contacts among `ids` (and/or in `groupId`) until the transaction ends, in id
 * order (FOR UPDATE is applied to the sorted rows): every writer of several contacts takes their
 * locks in the same order, so two of them wait for each other instead of deadlocking. Returns the
 * ids locked. Run inside a transaction; without one the locks end with the statement.
 */
export async function lockOwnedContacts(
  trx: Queryable,
  ownerId: number,
  target: { ids: readonly number[]; groupId?: number } | { groupId: number },
): Promise<number[]> {
  const query = trx('contacts').where('owner_id', ownerId);
  if ('ids' in target) {
    if (target.ids.length === 0) return [];
    query.whereIn('id', [...new Set(target.ids)]);
  }
  if (target.groupId !== undefined) query.where('group_id', target.groupId);
  const rows = await query.orderBy('id').forUpdate().select<Array<{ id: number }>>('id');
  return rows.map((row) => row.id);
}

/** Locks the caller's contact row until the transaction ends, so that concurrent updates serialise. */
export async function lockContact(trx: Knex.Transaction, ownerId: number, id: number): Promise<boolean> {
  const row = await trx('contacts').where({ owner_id: ownerId, id }).forUpdate().first('id');
  return row !== undefined;
}

export interface ContactListFilter {
  ownerId: number;
  /** Keyset: only contacts with a larger id. */
  afterId?: number;
  /** Case-insensitive substring of name, e-mail or company name. */
  search?: string;
  groupId?: number;
  updatedSince?: Date;
  limit: number;
}

/** Escapes LIKE wildcards so that a search for "50%" finds "50%", not everything starting with "50". */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * One page of an owner's contacts in id order, walking the (owner_id, id) index. Returns up
 * to `limit + 1` rows: the extra one only tells the caller that another page exists.
 */
export async function listContactRecords(db: Queryable, filter: ContactListFilter): Promise<ContactRecord[]> {
  // owner_id = ? AND id > ?, written as a row comparison on the index's key: with a plain equality
  // PostgreSQL may walk the primary key in id order instead, filtering out every other member's
  // rows (10-25 ms for a member whose contacts come after 100k others'; 0.1 ms this way).
  const query = recordQuery(db)
    .whereRaw('(c.owner_id, c.id) > (?, ?)', [filter.ownerId, filter.afterId ?? 0])
    .where('c.owner_id', '<=', filter.ownerId);
  if (filter.groupId !== undefined) query.where('c.group_id', filter.groupId);
  if (filter.updatedSince !== undefined) query.where('c.updated_at', '>=', filter.updatedSince);
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = likePattern(filter.search);
    query.where((where) =>
      where.whereILike('c.name', pattern).orWhereILike('c.email', pattern).orWhereILike('c.company_name', pattern),
    );
  }
  // One statement name per combination of filters: each has a fixed SQL text.
  const variant = [
    filter.groupId !== undefined ? 'group' : '',
    filter.updatedSince !== undefined ? 'since' : '',
    filter.search ? 'search' : '',
  ].join(':');
  return query
    .orderBy(['c.owner_id', 'c.id'])
    .limit(filter.limit + 1)
    .options(preparedAs(`contacts.list-records:${variant}`));
}

/** The owner's contacts in id order, skipping the first `offset`, at most `limit`: the v3 offset/limit listing. */
export async function listContactRecordsByOffset(
  db: Queryable,
  ownerId: number,
  window: { offset: number; limit: number },
): Promise<ContactRecord[]> {
  return recordQuery(db).where('c.owner_id', ownerId).orderBy('c.id').offset(window.offset).limit(window.limit);
}

/**
 * How many contacts a listing without a limit reads per query (contactRecordPages). Each page is
 * garbage once sent, and the process's memory grows with it: the 100k-contact export (bench
 * scenario 12, 2026-11-27, quick runs) rose 18–24 MB above its resting RSS with pages of 500 and
 * 9–10 MB with 200, in about the same time (100: 11–15 MB, 45 % slower).
 */
export const CONTACT_PAGE_SIZE = 200;

/**
 * Every contact of an owner, or linked to a group (its "guests", whoever owns them), in id order,
 * a page at a time: what a listing without a limit sends (GET /v3/contacts, a group's guests, the
 * vCard export), so that no more than a page is held however many there are. Read one query per
 * page (no transaction held open while a slow client reads): a contact added meanwhile is listed
 * if its page has not been read yet, and none is listed twice or skipped.
 */
export async function* contactRecordPages(
  db: Queryable,
  of: { ownerId: number } | { groupId: number },
  pageSize = CONTACT_PAGE_SIZE,
): AsyncGenerator<ContactRecord[]> {
  for (let afterId = 0; ; ) {
    const rows =
      'ownerId' in of
        ? await listContactRecords(db, { ownerId: of.ownerId, afterId, limit: pageSize })
        : await recordQuery(db)
            .where('c.group_id', of.groupId)
            .where('c.id', '>', afterId)
            .orderBy('c.id')
            .limit(pageSize + 1);
    const page = rows.slice(0, pageSize);
    if (page.length > 0) yield page;
    if (rows.length <= pageSize) return;
    afterId = page.at(-1)!.id;
  }
}

export async function insertContact(db: Queryable, ownerId: number, columns: NewContact): Promise<number> {
  const [row] = await db('contacts')
    .insert({ ...columns, owner_id: ownerId })
    .returning<Array<{ id: number }>>('id');
  return row!.id;
}

/**
 * Inserts a contact and reads it back as a record, in one statement (a data-modifying CTE): one
 * round trip, atomic on its own. A new contact has no image yet.
 */
export async function insertContactRecord(db: Queryable, ownerId: number, columns: NewContact): Promise<ContactRecord> {
  // Every writable column, absent ones as null: the statement text never varies.
  const values = [ownerId, ...WRITABLE_COLUMNS.map((column) => columns[column] ?? null)];
  const [record] = await queryPrepared<ContactRecord>(db, INSERT_RECORD.name, INSERT_RECORD.text, values);
  return record!;
}

/**
 * Inserts several contacts and reads them back as records, in one statement: what a batch of
 * creates costs instead of one round trip per contact. The records come back in the order given
 * (the ids are drawn in that order within the statement). Not a named statement: its text varies
 * with the number of contacts.
 */
export async function insertContactRecords(
  db: Queryable,
  ownerId: number,
  contacts: readonly NewContact[],
): Promise<ContactRecord[]> {
  if (contacts.length === 0) return [];
  const tuple = `(?, ${WRITABLE_COLUMNS.map(() => '?').join(', ')})`;
  const values = contacts.flatMap((columns) => [ownerId, ...WRITABLE_COLUMNS.map((column) => columns[column] ?? null)]);
  const { rows } = await db.raw<{ rows: ContactRecord[] }>(
    `with c as (
      insert into contacts (owner_id, ${WRITABLE_COLUMNS.join(', ')})
      values ${contacts.map(() => tuple).join(', ')}
      returning ${CONTACT_COLUMNS.join(', ')}
    )
    select ${ROW_COLUMNS}, bc.name as business_category_name, r.name as referrer_name, null as image_sha256
    from c ${RECORD_JOINS}
    order by c.id`,
    values as Knex.Value[],
  );
  return rows;
}

/**
 * Writes the given columns (undefined: left alone) when one of them differs from what is stored,
 * with updated_at, and answers whether the row was written. An update that would change no
 * column writes nothing (a condition on the UPDATE: no row matches, so no row trigger fires):
 * updated_at, the ETag and the change feed's xid stay as they were. `touch` writes the row (and
 * updated_at) even so: the contact's image changed.
 *
 * updated_at is the time of the write, clock_timestamp(), not now() (the start of the writing
 * transaction): a transaction that began earlier but waited for the row lock while another one
 * updated the row would stamp the later state with the earlier time, and a client that asked for
 * the changes since the time it was answered would miss it. Under the row lock, a row's
 * timestamps follow its states.
 */
export async function updateContact(
  db: Queryable,
  ownerId: number,
  id: number,
  columns: ContactChanges,
  options: { touch?: boolean } = {},
): Promise<boolean> {
  const changed = Object.entries(columns).filter(([, value]) => value !== undefined);
  if (changed.length === 0 && !options.touch) return false;
  const query = db('contacts').where({ owner_id: ownerId, id });
  if (!options.touch)
    query.where((differs) => {
      for (const [column, value] of changed) differs.orWhereRaw('?? is distinct from ?', [column, value as Knex.Value]);
    });
  const count = await query.update({ ...columns, updated_at: db.raw('clock_timestamp()') });
  return count > 0;
}

/** Deletes those of `ids` that the owner owns; returns the ids actually deleted, ascending. */
export async function deleteOwnedContacts(db: Queryable, ownerId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db('contacts')
    .where('owner_id', ownerId)
    .whereIn('id', [...new Set(ids)])
    .delete()
    .returning<Array<{ id: number }>>('id');
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/** Deletes the owner's contacts in a group (optionally only among `ids`); returns the deleted ids. */
export async function deleteOwnedContactsInGroup(
  db: Queryable,
  ownerId: number,
  groupId: number,
  ids?: readonly number[],
): Promise<number[]> {
  const query = db('contacts').where({ owner_id: ownerId, group_id: groupId });
  if (ids !== undefined) query.whereIn('id', [...new Set(ids)]);
  const rows = await query.delete().returning<Array<{ id: number }>>('id');
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/**
 * The owner's contact with this e-mail (case-insensitive, as the unique index compares), if any,
 * locked until the transaction ends: it cannot be deleted or changed under the caller meanwhile.
 * One that a transaction in progress deletes is waited for, and then not found.
 */
export async function lockOwnedContactIdByEmail(
  trx: Knex.Transaction,
  ownerId: number,
  email: string,
): Promise<number | undefined> {
  const row = await trx('contacts')
    .where('owner_id', ownerId)
    .whereRaw('lower(email) = lower(?)', [email])
    .forUpdate()
    .first<{ id: number } | undefined>('id');
  return row?.id;
}

/** Whether a database error is the (owner, e-mail) uniqueness violation. */
export function isDuplicateContactEmail(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'contacts_owner_email_unique';
}
