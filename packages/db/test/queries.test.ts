import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addGroupMember,
  type ContactRecord,
  contactRecordPages,
  findBusinessCategoryById,
  findMemberByEmail,
  findOwnedContactImage,
  IMAGE_CHUNK_BYTES,
  ImageChangedError,
  imageBytes,
  insertBusinessCategory,
  insertContact,
  insertGroup,
  insertMember,
  isGroupMember,
  listBusinessCategories,
  listGroupsOfMember,
  putContactImage,
} from '../src/index';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database.drop());

let sequence = 0;
const aMember = (overrides: Partial<{ email: string; name: string }> = {}) => {
  sequence += 1;
  return insertMember(database.db, {
    email: overrides.email ?? `member${sequence}@example.test`,
    name: overrides.name ?? `Member ${sequence}`,
    password_hash: 'not-a-real-hash',
  });
};

describe('members', () => {
  it('are found by e-mail whatever its case', async () => {
    const member = await aMember({ email: 'Ada.Lovelace@Example.test' });
    expect(await findMemberByEmail(database.db, 'ada.lovelace@example.TEST')).toMatchObject({ id: member.id });
  });

  it('cannot share an e-mail address, even in another case', async () => {
    await aMember({ email: 'twice@example.test' });
    await expect(aMember({ email: 'TWICE@example.test' })).rejects.toMatchObject({ code: '23505' });
  });
});

describe('groups', () => {
  it('know their members, and adding a member twice is harmless', async () => {
    const member = await aMember();
    const outsider = await aMember();
    const group = await insertGroup(database.db, { name: 'Book club' });
    await addGroupMember(database.db, group.id, member.id);
    await addGroupMember(database.db, group.id, member.id);

    expect(await isGroupMember(database.db, group.id, member.id)).toBe(true);
    expect(await isGroupMember(database.db, group.id, outsider.id)).toBe(false);
    expect(await listGroupsOfMember(database.db, member.id)).toEqual([{ id: group.id, name: 'Book club' }]);
  });
});

describe('contact record pages (the listings without a limit)', () => {
  const idsOf = (pages: ContactRecord[][]) => pages.flat().map((record) => record.id);
  const collect = async (
    pages: AsyncIterable<ContactRecord[]>,
    onPage: (n: number) => Promise<void> = async () => {},
  ) => {
    const seen: ContactRecord[][] = [];
    for await (const page of pages) {
      seen.push(page);
      await onPage(seen.length);
    }
    return seen;
  };

  it("read an owner's or a group's contacts in id order, at most a page per query, none twice or skipped", async () => {
    const owner = await aMember();
    const friend = await aMember();
    const group = await insertGroup(database.db, { name: 'Pages' });
    const own: number[] = [];
    const guests: number[] = [];
    for (let n = 0; n < 7; n++) {
      own.push(await insertContact(database.db, owner.id, { name: `Own ${n}`, group_id: n % 2 ? group.id : null }));
      if (n % 2) guests.push(own.at(-1)!);
      guests.push(await insertContact(database.db, friend.id, { name: `Friend ${n}`, group_id: group.id }));
    }
    const ownPages = await collect(contactRecordPages(database.db, { ownerId: owner.id }, 3));
    expect(ownPages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(idsOf(ownPages)).toEqual(own);
    const guestPages = await collect(contactRecordPages(database.db, { groupId: group.id }, 4));
    expect(guestPages.every((page) => page.length <= 4)).toBe(true);
    expect(idsOf(guestPages)).toEqual([...guests].sort((a, b) => a - b));
    expect(await collect(contactRecordPages(database.db, { ownerId: (await aMember()).id }, 3))).toEqual([]);
  });

  it('list a contact added while the listing is under way when its page is still to come', async () => {
    const owner = await aMember();
    for (let n = 0; n < 4; n++) await insertContact(database.db, owner.id, { name: `Before ${n}` });
    let added = 0;
    const pages = await collect(contactRecordPages(database.db, { ownerId: owner.id }, 2), async (n) => {
      if (n === 1) added = await insertContact(database.db, owner.id, { name: 'During' });
    });
    expect(idsOf(pages).at(-1)).toBe(added);
    expect(idsOf(pages)).toHaveLength(5);
  });
});

describe('business categories', () => {
  it('are listed in creation order and found by id', async () => {
    const retail = await insertBusinessCategory(database.db, { name: 'Retail' });
    const farming = await insertBusinessCategory(database.db, { name: 'Farming' });
    expect(await listBusinessCategories(database.db)).toEqual([retail, farming]);
    expect(await findBusinessCategoryById(database.db, farming.id)).toEqual(farming);
    expect(await findBusinessCategoryById(database.db, farming.id + 1000)).toBeUndefined();
  });
});

describe('contact images, read a chunk at a time', () => {
  const imageOf = async (bytes: Buffer) => {
    const owner = await aMember();
    const contactId = await insertContact(database.db, owner.id, { name: 'Pictured' });
    await putContactImage(database.db, contactId, { contentType: 'image/png', bytes });
    const found = await findOwnedContactImage(database.db, owner.id, contactId, { firstChunk: true });
    if (!found?.image) throw new Error('the image was not found');
    return { contactId, image: found.image };
  };
  const collect = async (chunks: AsyncIterable<Buffer>) => {
    const read: Buffer[] = [];
    for await (const chunk of chunks) read.push(chunk);
    return read;
  };

  it('come whole from a lookup that did not read the first chunk (a HEAD, a revalidation)', async () => {
    const bytes = Buffer.from(Array.from({ length: IMAGE_CHUNK_BYTES + 10 }, (_, index) => index % 251));
    const { contactId } = await imageOf(bytes);
    const owner = (await database.db('contacts').where({ id: contactId }).first('owner_id')) as { owner_id: number };
    const image = (await findOwnedContactImage(database.db, owner.owner_id, contactId, { firstChunk: false }))?.image;
    if (!image) throw new Error('the image was not found');
    expect(image.firstChunk).toBeUndefined();
    expect(image.size).toBe(bytes.length);
    const chunks = await collect(imageBytes(database.db, image));
    expect(chunks.map((chunk) => chunk.length)).toEqual([IMAGE_CHUNK_BYTES, 10]);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('come whole, in chunks of IMAGE_CHUNK_BYTES, the last one short', async () => {
    const bytes = Buffer.alloc(2 * IMAGE_CHUNK_BYTES + 100, 7);
    const { image } = await imageOf(bytes);
    const chunks = await collect(imageBytes(database.db, image));
    expect(chunks.map((chunk) => chunk.length)).toEqual([IMAGE_CHUNK_BYTES, IMAGE_CHUNK_BYTES, 100]);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('stop with ImageChangedError when the image is replaced meanwhile, never mixing in the new one', async () => {
    const { contactId, image } = await imageOf(Buffer.alloc(3 * IMAGE_CHUNK_BYTES, 1));
    const chunks = imageBytes(database.db, image);
    expect((await chunks.next()).value).toEqual(Buffer.alloc(IMAGE_CHUNK_BYTES, 1));
    // Another image of the same size: read on from the same offsets, its bytes would follow.
    await putContactImage(database.db, contactId, {
      contentType: 'image/png',
      bytes: Buffer.alloc(3 * IMAGE_CHUNK_BYTES, 2),
    });
    await expect(chunks.next()).rejects.toBeInstanceOf(ImageChangedError);
  });

  it('stop with ImageChangedError when the image is removed meanwhile', async () => {
    const { contactId, image } = await imageOf(Buffer.alloc(2 * IMAGE_CHUNK_BYTES, 3));
    const chunks = imageBytes(database.db, image);
    await chunks.next();
    await database.db('contact_images').where({ contact_id: contactId }).delete();
    await expect(chunks.next()).rejects.toBeInstanceOf(ImageChangedError);
  });
});
