import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  currentSnapshot,
  deleteOwnedContacts,
  insertContact,
  insertGroup,
  insertMember,
  isValidSnapshot,
  listContactChanges,
  updateContact,
} from '../src/index';
import { createTestDatabase, type TestDatabase } from '../src/testing/index';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database.drop());

let sequence = 0;
const aMember = () => {
  sequence += 1;
  return insertMember(database.db, {
    email: `changes${sequence}@example.test`,
    name: `Member ${sequence}`,
    password_hash: 'not-a-real-hash',
  });
};

/** The changes since a snapshot, up to now (as a sync's first page bounds them). */
const changesSince = async (ownerId: number, since: string) =>
  listContactChanges(database.db, {
    ownerId,
    since,
    until: await currentSnapshot(database.db),
    afterId: 0,
    limit: 1000,
  });

describe('change tracking', () => {
  it('reports creates, updates and deletes since a snapshot, and nothing before it', async () => {
    const member = await aMember();
    const db = database.db;
    const before = await insertContact(db, member.id, { name: 'Before' });
    const unchanged = await insertContact(db, member.id, { name: 'Unchanged' });
    const gone = await insertContact(db, member.id, { name: 'Gone' });
    const snapshot = await currentSnapshot(db);
    expect((await changesSince(member.id, snapshot)).records).toEqual([]);

    await updateContact(db, member.id, before, { city: 'Oslo' });
    const created = await insertContact(db, member.id, { name: 'Created' });
    await deleteOwnedContacts(db, member.id, [gone]);
    const page = await changesSince(member.id, snapshot);
    expect(page.records.map((record) => [record.id, record.city])).toEqual([
      [before, 'Oslo'],
      [created, null],
    ]);
    expect(page.deletedIds).toEqual([gone]);
    expect(page.records.map((record) => record.id)).not.toContain(unchanged);
  });

  it('does not miss a change whose transaction commits after a later snapshot was taken', async () => {
    const member = await aMember();
    const db = database.db;
    const contact = await insertContact(db, member.id, { name: 'Slow' });
    const first = await currentSnapshot(db);
    const trx = await db.transaction();
    await updateContact(trx, member.id, contact, { city: 'Late' });
    // Taken while the writer is still open: its write is not visible in it, so it must count as
    // a change since this snapshot once it commits, although it started earlier.
    const second = await currentSnapshot(db);
    await trx.commit();
    expect((await changesSince(member.id, first)).records.map((record) => record.id)).toEqual([contact]);
    expect((await changesSince(member.id, second)).records.map((record) => record.city)).toEqual(['Late']);
  });

  it('keeps members apart and pages contacts and tombstones together in id order', async () => {
    const member = await aMember();
    const other = await aMember();
    const db = database.db;
    const snapshot = await currentSnapshot(db);
    const ids = [];
    for (let index = 0; index < 5; index += 1) ids.push(await insertContact(db, member.id, { name: `C${index}` }));
    await insertContact(db, other.id, { name: 'Other' });
    await deleteOwnedContacts(db, member.id, [ids[1]!, ids[3]!]);
    const until = await currentSnapshot(db);
    const first = await listContactChanges(db, { ownerId: member.id, since: snapshot, until, afterId: 0, limit: 2 });
    expect(first.records.map((record) => record.id)).toEqual([ids[0]]);
    expect(first.deletedIds).toEqual([ids[1]]);
    expect(first.nextAfterId).toBe(ids[1]);
    const second = await listContactChanges(db, {
      ownerId: member.id,
      since: snapshot,
      until,
      afterId: ids[1]!,
      limit: 3,
    });
    expect(second.records.map((record) => record.id)).toEqual([ids[2], ids[4]]);
    expect(second.deletedIds).toEqual([ids[3]]);
    expect(second.nextAfterId).toBeUndefined();
  });

  it('lists only changes visible in `until`: later ones, and those still open then, are left to the next sync', async () => {
    const member = await aMember();
    const db = database.db;
    const since = await currentSnapshot(db);
    const early = await insertContact(db, member.id, { name: 'Early' });
    const doomed = await insertContact(db, member.id, { name: 'Doomed' });
    const open = await db.transaction();
    const slow = await insertContact(open, member.id, { name: 'Open while until was taken' });
    const until = await currentSnapshot(db);
    await open.commit();
    const late = await insertContact(db, member.id, { name: 'Late' });
    await updateContact(db, member.id, early, { city: 'Changed after until' });
    await deleteOwnedContacts(db, member.id, [doomed]);

    const page = await listContactChanges(db, { ownerId: member.id, since, until, afterId: 0, limit: 1000 });
    expect(page.records).toEqual([]);
    expect(page.deletedIds).toEqual([]);
    // All of it is in the next sync, as it is now.
    const following = await changesSince(member.id, until);
    expect(following.records.map((record) => [record.id, record.city])).toEqual([
      [early, 'Changed after until'],
      [slow, null],
      [late, null],
    ]);
    expect(following.deletedIds).toEqual([doomed]);
  });

  it('records a tombstone when a member deletion cascades to their contacts', async () => {
    const member = await aMember();
    const db = database.db;
    const contact = await insertContact(db, member.id, { name: 'Cascaded' });
    await db('members').where({ id: member.id }).delete();
    const tombstone = await db('contact_tombstones').where({ contact_id: contact }).first('member_id');
    expect(tombstone).toEqual({ member_id: member.id });
  });

  it("reports a contact changed by a foreign key's ON DELETE SET NULL (a group deleted)", async () => {
    const member = await aMember();
    const db = database.db;
    const group = await insertGroup(db, { name: 'Doomed group' });
    const contact = await insertContact(db, member.id, { name: 'In group', group_id: group.id });
    const snapshot = await currentSnapshot(db);
    await db('groups').where({ id: group.id }).delete();
    const page = await changesSince(member.id, snapshot);
    expect(page.records.map((record) => [record.id, record.group_id])).toEqual([[contact, null]]);
  });

  it('writes nothing for an update that changes no column: no updated_at, no change', async () => {
    const member = await aMember();
    const db = database.db;
    const contact = await insertContact(db, member.id, { name: 'Same', city: 'Oslo', join_date: '2020-01-31' });
    const before = await db('contacts').where({ id: contact }).first();
    const snapshot = await currentSnapshot(db);
    expect(await updateContact(db, member.id, contact, {})).toBe(false);
    expect(await updateContact(db, member.id, contact, { name: 'Same', city: 'Oslo', email: null })).toBe(false);
    expect(await updateContact(db, member.id, contact, { join_date: '2020-01-31', country: null })).toBe(false);
    expect(await db('contacts').where({ id: contact }).first()).toEqual(before);
    expect((await changesSince(member.id, snapshot)).records).toEqual([]);

    expect(await updateContact(db, member.id, contact, { name: 'Same', city: 'Bergen' })).toBe(true);
    const after = await db('contacts').where({ id: contact }).first();
    expect(after).toMatchObject({ name: 'Same', city: 'Bergen' });
    expect(after!.updated_at.getTime()).toBeGreaterThan(before!.updated_at.getTime());
    expect((await changesSince(member.id, snapshot)).records.map((record) => record.id)).toEqual([contact]);
    // `touch`: written although no column changes (the contact's image did).
    expect(await updateContact(db, member.id, contact, {}, { touch: true })).toBe(true);
    expect((await db('contacts').where({ id: contact }).first())!.updated_at.getTime()).toBeGreaterThan(
      after!.updated_at.getTime(),
    );
  });

  it('stamps updated_at with the time of the write, not the start of its transaction', async () => {
    const member = await aMember();
    const db = database.db;
    const contact = await insertContact(db, member.id, { name: 'Stamped' });
    const trx = await db.transaction();
    try {
      const { rows } = await trx.raw<{ rows: Array<{ started: Date }> }>('select now() as started');
      await new Promise((resolve) => setTimeout(resolve, 20));
      await updateContact(trx, member.id, contact, { city: 'Later' });
      const row = await trx('contacts').where({ id: contact }).first('updated_at');
      expect(row!.updated_at.getTime()).toBeGreaterThanOrEqual(rows[0]!.started.getTime() + 20);
    } finally {
      await trx.rollback();
    }
  });

  it('tells a snapshot PostgreSQL accepts from one it refuses', async () => {
    expect(await isValidSnapshot(database.db, await currentSnapshot(database.db))).toBe(true);
    expect(await isValidSnapshot(database.db, '10:5:')).toBe(false);
  });
});
