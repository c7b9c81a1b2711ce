import { createTestDatabase, type TestDatabase } from '@contacts/db/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createContact, deleteOwnContact, updateContactFields, upsertContactByEmail } from '../src/domain/contacts';
import { DomainError } from '../src/domain/errors';
import { aContact, aGroup, aMember } from './support/factories';

/** The rules v3 will reuse, exercised on the domain module directly (real PostgreSQL). */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

describe('contacts domain', () => {
  it('upserts by e-mail without races: 20 parallel calls with one new e-mail leave one contact', async () => {
    const member = await aMember(database.db);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        upsertContactByEmail(database.db, member.id, {
          name: `Racer ${i}`,
          email: i % 2 ? 'race@example.com' : 'RACE@example.com',
        }),
      ),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.record.id)).size).toBe(1);
    expect(await database.db('contacts').where({ owner_id: member.id })).toHaveLength(1);
  });

  it('upserts over a delete in progress: waits for it, then creates the contact anew (a 500 before)', async () => {
    const member = await aMember(database.db);
    const doomed = await aContact(database.db, member, { email: 'doomed@example.com' });
    const deleting = await database.db.transaction();
    await deleting('contacts').where({ id: doomed }).delete();
    const upsert = upsertContactByEmail(database.db, member.id, { name: 'Back', email: 'DOOMED@example.com' });
    // The upsert reaches the contact's row and waits on the delete's lock.
    await vi.waitFor(async () => {
      const [waiting] = await database
        .db('pg_stat_activity')
        .where({ wait_event_type: 'Lock', datname: database.db.raw('current_database()') })
        .count<{ count: string }[]>('* as count');
      expect(Number(waiting?.count)).toBeGreaterThan(0);
    });
    await deleting.commit();
    const result = await upsert;
    expect(result.created).toBe(true);
    expect(result.record).toMatchObject({ name: 'Back', email: 'DOOMED@example.com' });
    expect(result.record.id).not.toBe(doomed);
  });

  it("refuses to give a contact an e-mail another of the member's contacts holds", async () => {
    const member = await aMember(database.db);
    await createContact(database.db, member.id, { name: 'A', email: 'a@example.com' });
    const b = await createContact(database.db, member.id, { name: 'B' });
    await expect(updateContactFields(database.db, member.id, b.id, { email: 'A@example.com' })).rejects.toMatchObject({
      kind: 'invalid',
      fields: { email: ['The email has already been taken.'] },
    });
  });

  it('lets only the creator delete a contact: a group guest is forbidden, an invisible one not found', async () => {
    const creator = await aMember(database.db);
    const friend = await aMember(database.db);
    const stranger = await aMember(database.db);
    const group = await aGroup(database.db, [creator, friend]);
    const guest = await aContact(database.db, creator, { group_id: group.id });
    await expect(deleteOwnContact(database.db, friend.id, guest)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(deleteOwnContact(database.db, stranger.id, guest)).rejects.toMatchObject({ kind: 'not_found' });
    await deleteOwnContact(database.db, creator.id, guest);
    expect(await database.db('contacts').where({ id: guest })).toHaveLength(0);
  });

  it('applies the group rule to every write, and a refused write leaves nothing behind', async () => {
    const member = await aMember(database.db);
    const foreign = await aGroup(database.db, [await aMember(database.db)]);
    const error = await createContact(database.db, member.id, { name: 'X', group_id: foreign.id }).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.kind).toBe('forbidden');
    await expect(
      upsertContactByEmail(database.db, member.id, { name: 'Y', email: 'y@example.com', group_id: foreign.id }),
    ).rejects.toMatchObject({ kind: 'forbidden' });
    expect(await database.db('contacts').where({ owner_id: member.id })).toHaveLength(0);
  });
});
