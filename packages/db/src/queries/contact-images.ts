import { createHash } from 'node:crypto';
import type { ContactImageRow } from '../tables';
import type { Queryable } from './contacts';

export type ContactImage = ContactImageRow;

/**
 * Stores (or replaces) a contact's image; answers whether anything changed (false when the same
 * image is stored already). Run it in the transaction that writes the contact.
 */
export async function putContactImage(
  db: Queryable,
  contactId: number,
  image: { contentType: string; bytes: Buffer },
): Promise<boolean> {
  const row = {
    contact_id: contactId,
    content_type: image.contentType,
    size: image.bytes.length,
    sha256: createHash('sha256').update(image.bytes).digest('base64url'),
    bytes: image.bytes,
    created_at: db.fn.now(),
  };
  const written = await db('contact_images')
    .insert(row)
    .onConflict('contact_id')
    .merge()
    .whereRaw(
      'contact_images.sha256 is distinct from excluded.sha256 or contact_images.content_type is distinct from excluded.content_type',
    )
    .returning<Array<{ contact_id: number }>>('contact_id');
  return written.length > 0;
}

/**
 * Deletes a contact's image; answers whether there was one. Run it in the transaction that locks
 * and touches the contact (updateContact's `touch`), so that the change feed reports it.
 */
export async function deleteContactImage(db: Queryable, contactId: number): Promise<boolean> {
  const deleted = await db('contact_images').where({ contact_id: contactId }).delete();
  return deleted > 0;
}

/**
 * What a request for a contact's image finds: undefined when the contact is not one the caller
 * may see (no such contact); else the contact's image, undefined when it has none. Both in one
 * query, so that a 404 can say which.
 */
export type ImageLookup = { image: ContactImage | undefined } | undefined;

/** The image of one of the owner's contacts. */
export async function findOwnedContactImage(db: Queryable, ownerId: number, contactId: number): Promise<ImageLookup> {
  return imageOfContactWhere(db, contactId, { 'c.owner_id': ownerId });
}

/** The image of a contact linked to the group (one of its guests). */
export async function findGroupGuestImage(db: Queryable, groupId: number, contactId: number): Promise<ImageLookup> {
  return imageOfContactWhere(db, contactId, { 'c.group_id': groupId });
}

/** A contact's image, when the contact also matches `condition` (who may see it). */
async function imageOfContactWhere(
  db: Queryable,
  contactId: number,
  condition: { 'c.owner_id': number } | { 'c.group_id': number },
): Promise<ImageLookup> {
  const row = await db('contacts as c')
    .leftJoin('contact_images as ci', 'ci.contact_id', 'c.id')
    .where({ ...condition, 'c.id': contactId })
    .first<(Omit<ContactImage, 'contact_id'> & { contact_id: number | null }) | undefined>(
      'ci.contact_id',
      'ci.content_type',
      'ci.size',
      'ci.sha256',
      'ci.bytes',
      'ci.created_at',
    );
  if (row === undefined) return undefined;
  return { image: row.contact_id === null ? undefined : (row as ContactImage) };
}
