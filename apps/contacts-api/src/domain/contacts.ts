import {
  type ContactRecord,
  contactRecordPages,
  type Database,
  deleteContactImage,
  deleteOwnedContacts,
  deleteOwnedContactsInGroup,
  findBusinessCategoryById,
  findContactRecord,
  findGroupById,
  findGroupGuestImage,
  findMemberById,
  type ImageLookup,
  type ImageLookupOptions,
  insertContact,
  insertContactRecord,
  insertContactRecords,
  isDuplicateContactEmail,
  isGroupGuestContact,
  isGroupMember,
  listContactRecords,
  lockContact,
  lockOwnedContactEmail,
  lockOwnedContactIdByEmail,
  lockOwnedContacts,
  putContactImage,
  type Queryable,
  updateContact,
} from '@contacts/db';
import type { ContactChanges, NewContact } from '@contacts/schemas';
import type { Knex } from 'knex';
import { contactNotFound, DomainError, EMAIL_TAKEN, invalidField, notGroupMember } from './errors';

/**
 * The address book's rules, written once for every API version (v4 and the deprecated v3): who may
 * see, link and delete what; the group rule; the e-mail uniqueness; images stored with their
 * contact. Every write runs in one transaction, so a refused request leaves nothing behind.
 * Inputs arrive validated (shape, lengths, formats); what needs the database is checked here.
 */

/** An image already checked to be a JPEG or PNG by its content. */
export interface ContactImageInput {
  contentType: 'image/jpeg' | 'image/png';
  bytes: Buffer;
}

export interface ListOptions {
  afterId?: number;
  search?: string;
  groupId?: number;
  updatedSince?: Date;
  limit: number;
}

export async function getContact(db: Database, memberId: number, id: number): Promise<ContactRecord> {
  const record = await findContactRecord(db, memberId, id);
  if (!record) throw contactNotFound();
  return record;
}

/** One page of the member's contacts in id order; `hasMore` when another page follows. */
export async function listContacts(
  db: Database,
  memberId: number,
  options: ListOptions,
): Promise<{ records: ContactRecord[]; hasMore: boolean }> {
  const rows = await listContactRecords(db, { ownerId: memberId, ...options });
  return { records: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}

export async function createContact(
  db: Database,
  memberId: number,
  contact: NewContact,
  image?: ContactImageInput,
): Promise<ContactRecord> {
  // Nothing to check and no image: one statement, which is its own transaction (the common case).
  if (!image && !hasReferences(contact)) return insertOrExplain(() => insertContactRecord(db, memberId, contact));
  return db.transaction(async (trx) => {
    await checkReferences(trx, memberId, contact);
    const id = await insertOrExplain(() => insertContact(trx, memberId, contact));
    if (image) await putContactImage(trx, id, image);
    return recordOf(trx, memberId, id);
  });
}

/**
 * Creates several contacts, in order, under the same rules as createContact. Contacts that link
 * nothing (no category, group or referrer) are written by one statement; otherwise one at a time.
 */
export async function createContacts(
  db: Database,
  memberId: number,
  contacts: readonly NewContact[],
): Promise<ContactRecord[]> {
  if (contacts.some(hasReferences)) {
    const records: ContactRecord[] = [];
    for (const contact of contacts) records.push(await createContact(db, memberId, contact));
    return records;
  }
  return insertOrExplain(() => insertContactRecords(db, memberId, contacts));
}

export interface UpdateOptions {
  image?: ContactImageInput;
  /**
   * Checked against the current contact, under a row lock: true → go ahead; false →
   * precondition_failed ("has changed"); a string → precondition_failed with that message.
   */
  precondition?: (current: ContactRecord) => boolean | string;
}

/**
 * Changes only the fields given (undefined: unchanged, null: cleared), and/or replaces the image.
 * An update that changes no stored value (no field, or each as stored; the image stored already)
 * writes nothing and answers the contact as it is: same updated_at, same ETag, no change-feed entry.
 */
export async function updateContactFields(
  db: Database,
  memberId: number,
  id: number,
  changes: ContactChanges,
  options: UpdateOptions = {},
): Promise<ContactRecord> {
  return db.transaction(async (trx) => {
    await lockOwnedContact(trx, memberId, id);
    // Read only when something needs the stored contact: most updates have no precondition and link nothing.
    const current = options.precondition || hasReferences(changes) ? await recordOf(trx, memberId, id) : undefined;
    if (options.precondition && current) checkPrecondition(options.precondition, current);
    await checkReferences(trx, memberId, changes, current);
    // Nothing is written when nothing changes: not the row, nor its updated_at (nor so its ETag).
    const imageChanged = options.image ? await putContactImage(trx, id, options.image) : false;
    await insertOrExplain(() => updateContact(trx, memberId, id, changes, { touch: imageChanged }));
    return recordOf(trx, memberId, id);
  });
}

/**
 * Removes the contact's image, in one transaction under the contact's row lock: not the member's
 * contact → not_found; no image → not_found (saying so); the precondition checked as for an
 * update (before anything is written). The contact is then touched as an image upload touches
 * it: updated_at is the time of the write, its ETag changes, the change feed lists it.
 */
export async function removeContactImage(
  db: Database,
  memberId: number,
  id: number,
  options: Pick<UpdateOptions, 'precondition'> = {},
): Promise<void> {
  return db.transaction(async (trx) => {
    await lockOwnedContact(trx, memberId, id);
    const current = await recordOf(trx, memberId, id);
    // RFC 9110 §13.2.1: a request that would fail without its preconditions fails so (404), not 412.
    if (current.image_sha256 === null) throw contactHasNoImage();
    if (options.precondition) checkPrecondition(options.precondition, current);
    if (!(await deleteContactImage(trx, id))) throw contactHasNoImage();
    await updateContact(trx, memberId, id, {}, { touch: true });
  });
}

const contactHasNoImage = () => new DomainError('not_found', 'This contact has no image.');

/** Locks the member's contact row until the transaction ends (concurrent writes serialise); not_found when not theirs. */
async function lockOwnedContact(trx: Knex.Transaction, memberId: number, id: number): Promise<void> {
  if (!(await lockContact(trx, memberId, id))) throw contactNotFound();
}

/** A write's precondition, checked against the contact as it is under the row lock (UpdateOptions.precondition). */
function checkPrecondition(precondition: NonNullable<UpdateOptions['precondition']>, current: ContactRecord): void {
  const verdict = precondition(current);
  if (verdict !== true)
    throw new DomainError(
      'precondition_failed',
      typeof verdict === 'string' ? verdict : 'The contact has changed since you read it.',
    );
}

/**
 * Creates the contact, or updates the member's contact with the same e-mail (case-insensitive)
 * when there is one — v3's POST. Race-free: a lock on (member, e-mail) serialises concurrent
 * calls, so parallel requests with one new e-mail create one row. Writers that take no such lock
 * (v4's create and delete, a batch, an import) are met as they come: the contact found is locked
 * before it is updated, so a delete cannot take it away half-way (it waits, or it came first and
 * the contact is not found); and an insert that finds the e-mail taken meanwhile gives way (in a
 * savepoint) and the contact is looked up again.
 */
export async function upsertContactByEmail(
  db: Database,
  memberId: number,
  contact: NewContact,
  image?: ContactImageInput,
): Promise<{ record: ContactRecord; created: boolean }> {
  const email = contact.email ?? null;
  if (email === null) return { record: await createContact(db, memberId, contact, image), created: true };
  return db.transaction(async (trx) => {
    await lockOwnedContactEmail(trx, memberId, email);
    // Each round ends unless another writer inserted the e-mail and deleted it again in between.
    for (let round = 0; round < UPSERT_ROUNDS; round++) {
      const existing = await lockOwnedContactIdByEmail(trx, memberId, email);
      if (existing !== undefined) {
        if (hasReferences(contact)) {
          await checkReferences(trx, memberId, contact, await recordOf(trx, memberId, existing));
        }
        const imageChanged = image ? await putContactImage(trx, existing, image) : false;
        await updateContact(trx, memberId, existing, contact, { touch: imageChanged });
        return { record: await recordOf(trx, memberId, existing), created: false };
      }
      if (hasReferences(contact)) await checkReferences(trx, memberId, contact);
      const id = await insertUnlessEmailTaken(trx, memberId, contact);
      if (id !== undefined) {
        if (image) await putContactImage(trx, id, image);
        return { record: await recordOf(trx, memberId, id), created: true };
      }
    }
    throw invalidField('email', EMAIL_TAKEN);
  });
}

/** How often an upsert looks again for a contact that other writers keep adding and removing. */
const UPSERT_ROUNDS = 3;

/** A contact this transaction wrote or locked, which therefore exists (an error says so if it does not). */
async function recordOf(trx: Knex.Transaction, memberId: number, id: number): Promise<ContactRecord> {
  const record = await findContactRecord(trx, memberId, id);
  if (!record) throw new Error(`contact ${id}, written or locked by this transaction, was not found`);
  return record;
}

/** The new contact's id, or undefined when the member has a contact with its e-mail (nothing written). */
async function insertUnlessEmailTaken(
  trx: Knex.Transaction,
  memberId: number,
  contact: NewContact,
): Promise<number | undefined> {
  try {
    return await trx.transaction((savepoint) => insertContact(savepoint, memberId, contact));
  } catch (error) {
    if (isDuplicateContactEmail(error)) return undefined;
    throw error;
  }
}

/**
 * Deletes the member's own contacts among `contactIds` and/or in `groupId` (both given: those
 * of the ids that are in the group). The member must belong to the group. Other members'
 * contacts and unknown ids are silently left alone. Returns the ids deleted.
 */
export async function deleteContacts(
  db: Database,
  memberId: number,
  target: { contactIds?: readonly number[]; groupId?: number },
): Promise<number[]> {
  return db.transaction(async (trx) => {
    if (target.groupId !== undefined) {
      if (!(await isGroupMember(trx, target.groupId, memberId))) throw notGroupMember();
      // Locked in id order first: a DELETE takes its rows in the order it finds them, and two
      // writers that lock the same contacts in different orders deadlock.
      const { groupId, contactIds } = target;
      await lockOwnedContacts(trx, memberId, contactIds ? { ids: contactIds, groupId } : { groupId });
      return deleteOwnedContactsInGroup(trx, memberId, groupId, contactIds);
    }
    const ids = target.contactIds ?? [];
    await lockOwnedContacts(trx, memberId, { ids });
    return deleteOwnedContacts(trx, memberId, ids);
  });
}

/**
 * Deletes one of the member's own contacts (a batch's delete operation): true when it was
 * deleted, false when there was none to delete (not theirs, or gone). A precondition is checked
 * under the contact's row lock first, as for an update, so that a mirror's delete cannot wipe a
 * change it has not seen.
 */
export async function deleteOwnedContact(
  db: Database,
  memberId: number,
  id: number,
  options: Pick<UpdateOptions, 'precondition'> = {},
): Promise<boolean> {
  return db.transaction(async (trx) => {
    if (!(await lockContact(trx, memberId, id))) {
      // Nothing to delete, as DELETE /v4/contacts skips such ids: a mirror's delete of a contact
      // already gone is done. A precondition cannot hold without a contact (RFC 9110 §13.1.1).
      if (options.precondition)
        throw new DomainError('precondition_failed', 'The contact no longer exists: nothing was deleted.');
      return false;
    }
    if (options.precondition) checkPrecondition(options.precondition, await recordOf(trx, memberId, id));
    await deleteOwnedContacts(trx, memberId, [id]);
    return true;
  });
}

/**
 * Deletes one contact for its creator only (v3's DELETE): a contact the member merely sees as a
 * guest of one of their groups → forbidden; one they cannot see at all → not found.
 */
export async function deleteOwnContact(db: Database, memberId: number, id: number): Promise<void> {
  await db.transaction(async (trx) => {
    const [deleted] = await deleteOwnedContacts(trx, memberId, [id]);
    if (deleted !== undefined) return;
    if (await isGroupGuestContact(trx, memberId, id))
      throw new DomainError('forbidden', 'Only the member who created this contact can delete it.');
    throw contactNotFound();
  });
}

/** The contacts linked to a group ("guests"), for members of that group only: a page at a time, in id order. */
export async function groupGuestPages(
  db: Database,
  memberId: number,
  groupId: number,
): Promise<AsyncGenerator<ContactRecord[]>> {
  await requireGroupMember(db, memberId, groupId);
  return contactRecordPages(db, { groupId });
}

/** A guest's image, for members of the group only (the guests listing points its image_url here). */
export async function findGroupGuestImageFor(
  db: Database,
  memberId: number,
  groupId: number,
  contactId: number,
  options: ImageLookupOptions,
): Promise<ImageLookup> {
  await requireGroupMember(db, memberId, groupId);
  return findGroupGuestImage(db, groupId, contactId, options);
}

async function requireGroupMember(db: Database, memberId: number, groupId: number): Promise<void> {
  if (!(await findGroupById(db, groupId))) throw new DomainError('not_found', 'No such group.');
  if (!(await isGroupMember(db, groupId, memberId))) throw notGroupMember();
}

/** Whether a write names a category, referrer or group (which checkReferences then checks). */
function hasReferences(changes: ContactChanges): boolean {
  return changes.business_category_id != null || changes.referrer_id != null || changes.group_id != null;
}

/**
 * The rules about what a contact may point at, in one place for every version: the category
 * and referrer must exist; the group must exist and the member must belong to it. A reference
 * an update leaves as `current` holds it is not checked again: a client may send back a contact
 * as it read it (a tolerant reader), also after its owner left the contact's group or its
 * referrer was disabled; only a reference that changes must satisfy the rules.
 */
async function checkReferences(
  trx: Queryable,
  memberId: number,
  changes: ContactChanges,
  current?: ContactRecord,
): Promise<void> {
  /** The id the write sets for `field`, when it sets one other than the stored one. */
  const changed = (field: 'business_category_id' | 'referrer_id' | 'group_id') => {
    const value = changes[field];
    return value != null && value !== current?.[field] ? value : undefined;
  };
  const categoryId = changed('business_category_id');
  if (categoryId !== undefined && !(await findBusinessCategoryById(trx, categoryId)))
    throw invalidField('business_category_id', 'The selected business category id is invalid.');
  const referrerId = changed('referrer_id');
  if (referrerId !== undefined && !(await findMemberById(trx, referrerId)))
    throw invalidField('referrer_id', 'The selected referrer id is invalid.');
  const groupId = changed('group_id');
  if (groupId !== undefined) {
    if (!(await findGroupById(trx, groupId))) throw invalidField('group_id', 'The selected group id is invalid.');
    if (!(await isGroupMember(trx, groupId, memberId))) throw notGroupMember();
  }
}

/** Turns the (owner, e-mail) uniqueness violation into the message members read. */
async function insertOrExplain<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateContactEmail(error)) throw invalidField('email', EMAIL_TAKEN);
    throw error;
  }
}
