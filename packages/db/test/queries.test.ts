import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addGroupMember,
  findBusinessCategoryById,
  findMemberByEmail,
  insertBusinessCategory,
  insertGroup,
  insertMember,
  isGroupMember,
  listBusinessCategories,
  listGroupsOfMember,
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

describe('business categories', () => {
  it('are listed in creation order and found by id', async () => {
    const retail = await insertBusinessCategory(database.db, { name: 'Retail' });
    const farming = await insertBusinessCategory(database.db, { name: 'Farming' });
    expect(await listBusinessCategories(database.db)).toEqual([retail, farming]);
    expect(await findBusinessCategoryById(database.db, farming.id)).toEqual(farming);
    expect(await findBusinessCategoryById(database.db, farming.id + 1000)).toBeUndefined();
  });
});
