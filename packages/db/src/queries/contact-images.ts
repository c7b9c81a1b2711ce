import { createHash } from 'node:crypto';
import type { Database } from '../connection';
import { queryPrepared } from '../prepared';
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
 * An image as a request for it finds it: what it is, and its first bytes (at most
 * IMAGE_CHUNK_BYTES) when the lookup asked for them.
 */
export type StoredImage = Omit<ContactImage, 'bytes'> & { firstChunk: Buffer | undefined };

/**
 * Whether a lookup reads the image's first bytes along with what it is: a request that may send
 * them does (one query for an image of up to a chunk); a HEAD, or a revalidation that is
 * usually answered 304, does not read up to 256 KiB it will not send (imageBytes reads them
 * later, if needed).
 */
export interface ImageLookupOptions {
  firstChunk: boolean;
}

/**
 * What a request for a contact's image finds: undefined when the contact is not one the caller
 * may see (no such contact); else the contact's image, undefined when it has none. Both in one
 * query, so that a 404 can say which.
 */
export type ImageLookup = { image: StoredImage | undefined } | undefined;

/**
 * The most bytes of an image read at once. An image is sent in chunks of this size, each read
 * when the client has taken the one before (readImageChunk): a download holds about this much of
 * the process's memory, however large the image and however slowly it is read, rather than the
 * whole image (and twice its size in the driver's hex text) for as long as the transfer lasts.
 */
export const IMAGE_CHUNK_BYTES = 256 * 1024;

/** The image of one of the owner's contacts. */
export async function findOwnedContactImage(
  db: Queryable,
  ownerId: number,
  contactId: number,
  options: ImageLookupOptions,
): Promise<ImageLookup> {
  return imageOfContactWhere(db, contactId, { 'c.owner_id': ownerId }, options);
}

/** The image of a contact linked to the group (one of its guests). */
export async function findGroupGuestImage(
  db: Queryable,
  groupId: number,
  contactId: number,
  options: ImageLookupOptions,
): Promise<ImageLookup> {
  return imageOfContactWhere(db, contactId, { 'c.group_id': groupId }, options);
}

/** A contact's image, when the contact also matches `condition` (who may see it). */
async function imageOfContactWhere(
  db: Queryable,
  contactId: number,
  condition: { 'c.owner_id': number } | { 'c.group_id': number },
  options: ImageLookupOptions,
): Promise<ImageLookup> {
  const row = await db('contacts as c')
    .leftJoin('contact_images as ci', 'ci.contact_id', 'c.id')
    .where({ ...condition, 'c.id': contactId })
    .first<(Omit<StoredImage, 'contact_id'> & { contact_id: number | null }) | undefined>(
      'ci.contact_id',
      'ci.content_type',
      'ci.size',
      'ci.sha256',
      'ci.created_at',
      options.firstChunk
        ? db.raw('substring(ci.bytes from 1 for ?) as "firstChunk"', [IMAGE_CHUNK_BYTES])
        : db.raw('null::bytea as "firstChunk"'),
    );
  if (row === undefined) return undefined;
  return {
    image: row.contact_id === null ? undefined : ({ ...row, firstChunk: row.firstChunk ?? undefined } as StoredImage),
  };
}

/**
 * The image's bytes, a chunk at a time, each read when the one before has been taken. Replaced or
 * removed meanwhile, the image's next chunk is an ImageChangedError rather than bytes of another.
 */
export async function* imageBytes(db: Database, image: StoredImage): AsyncGenerator<Buffer> {
  let offset = 0;
  if (image.firstChunk) {
    yield image.firstChunk;
    offset = image.firstChunk.length;
  }
  while (offset < image.size) {
    const chunk = await readImageChunk(db, image, offset);
    if (!chunk || chunk.length === 0) throw new ImageChangedError();
    yield chunk;
    offset += chunk.length;
  }
}

export class ImageChangedError extends Error {
  constructor() {
    super('The image was replaced or removed while it was being read.');
  }
}

/**
 * Bytes `offset` to `offset + IMAGE_CHUNK_BYTES` of the contact's image, if it is still the image
 * whose hash is `sha256`; undefined once it has been replaced or removed (the rest of a transfer
 * begun before must not come from another image). PostgreSQL reads only the slice asked for.
 */
async function readImageChunk(
  db: Database,
  image: Pick<StoredImage, 'contact_id' | 'sha256'>,
  offset: number,
): Promise<Buffer | undefined> {
  const [row] = await queryPrepared<{ chunk: Buffer }>(
    db,
    'contact-image-chunk',
    'select substring(bytes from $3 for $4) as chunk from contact_images where contact_id = $1 and sha256 = $2',
    [image.contact_id, image.sha256, offset + 1, IMAGE_CHUNK_BYTES],
  );
  return row?.chunk;
}
