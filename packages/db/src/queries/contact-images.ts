import { createHash } from 'node:crypto';
import type { ContactImageRow } from '../tables';
import type { Queryable } from './contacts';

export type ContactImage = ContactImageRow;

/** Stores (or replaces) a contact's image. Run it in the transaction that writes the contact. */
export async function putContactImage(
  db: Queryable,
  contactId: number,
  image: { contentType: string; bytes: Buffer },
): Promise<void> {
  const row = {
    contact_id: contactId,
    content_type: image.contentType,
    size: image.bytes.length,
    sha256: createHash('sha256').update(image.bytes).digest('base64url'),
    bytes: image.bytes,
    created_at: db.fn.now(),
  };
  await db('contact_images').insert(row).onConflict('contact_id').merge();
}

/** The image of one of the owner's contacts; undefined when the contact is not theirs or has none. */
export async function findOwnedContactImage(
  db: Queryable,
  ownerId: number,
  contactId: number,
): Promise<ContactImage | undefined> {
  return imageOfContactWhere(db, contactId, { 'c.owner_id': ownerId });
}

/** The image of a contact linked to the group (one of its guests); undefined when it is not a guest there or has none. */
export async function findGroupGuestImage(
  db: Queryable,
  groupId: number,
  contactId: number,
): Promise<ContactImage | undefined> {
  return imageOfContactWhere(db, contactId, { 'c.group_id': groupId });
}

/** A contact's image, when the contact also matches `condition` (who may see it). */
async function imageOfContactWhere(
  db: Queryable,
  contactId: number,
  condition: { 'c.owner_id': number } | { 'c.group_id': number },
): Promise<ContactImage | undefined> {
  return db('contact_images as ci')
    .join('contacts as c', 'c.id', 'ci.contact_id')
    .where({ ...condition, 'ci.contact_id': contactId })
    .first<ContactImage | undefined>('ci.*');
}
