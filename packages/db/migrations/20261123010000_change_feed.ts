import type { Knex } from 'knex';

/**
 * Change tracking for the change feed (GET /v4/contacts/changes), kept by the database itself so
 * that every write path is covered without application code: v4 single and bulk deletes, delete
 * by group, v3 DELETE, a member's deletion cascading to their contacts, ON DELETE SET NULL
 * updates from a deleted group or category.
 *
 * - contacts.xid: the id of the transaction that last wrote the row (pg_current_xact_id(), the
 *   top-level 64-bit id even inside a savepoint), set by a BEFORE INSERT OR UPDATE trigger.
 * - contact_tombstones: one row per deleted contact (owner, contact id, deleting transaction id,
 *   time), written by an AFTER DELETE trigger in the deleting transaction, so the contact and its
 *   tombstone become visible to others atomically: no snapshot sees both, or neither.
 *
 * Why transaction ids rather than timestamps: updated_at is the time a transaction *started*
 * writing, and a transaction that started earlier may commit later, after a reader already moved
 * past its timestamp. A sync token instead carries a snapshot (pg_current_snapshot()): the set of
 * transactions whose effects the token's holder has seen. A row changed since then is exactly a
 * row whose xid is not visible in that snapshot, whenever its transaction commits.
 *
 * Rows written before this migration get xid 3 (FirstNormalTransactionId), older than any
 * snapshot's xmin: visible in every snapshot, so not reported as changed (a full listing still
 * returns them). A constant default also adds the column without rewriting the table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table contacts add column xid xid8 not null default '3'`);
  await knex.raw(`
    create function contacts_stamp_xid() returns trigger language plpgsql as $$
    begin
      new.xid := pg_current_xact_id();
      return new;
    end $$`);
  await knex.raw(`
    create trigger contacts_stamp_xid before insert or update on contacts
    for each row execute function contacts_stamp_xid()`);
  // The changes since a snapshot are found from its xmin upwards, per member.
  await knex.raw('create index contacts_owner_xid on contacts (owner_id, xid)');

  await knex.raw(`
    create table contact_tombstones (
      contact_id integer primary key,
      member_id integer not null,
      xid xid8 not null default pg_current_xact_id(),
      deleted_at timestamptz not null default clock_timestamp()
    )`);
  await knex.raw('create index contact_tombstones_member_xid on contact_tombstones (member_id, xid)');
  await knex.raw('create index contact_tombstones_deleted_at on contact_tombstones (deleted_at)');
  // No foreign key to members: the tombstones of a deleted member are removed with the others by
  // age (nobody can sync that member's book any more), and a key would only order the cascades.
  await knex.raw(`
    create function contacts_record_tombstone() returns trigger language plpgsql as $$
    begin
      insert into contact_tombstones (contact_id, member_id) values (old.id, old.owner_id)
      on conflict (contact_id) do nothing;
      return null;
    end $$`);
  await knex.raw(`
    create trigger contacts_record_tombstone after delete on contacts
    for each row execute function contacts_record_tombstone()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists contacts_record_tombstone on contacts');
  await knex.raw('drop function if exists contacts_record_tombstone()');
  await knex.raw('drop table if exists contact_tombstones');
  await knex.raw('drop trigger if exists contacts_stamp_xid on contacts');
  await knex.raw('drop function if exists contacts_stamp_xid()');
  await knex.raw('drop index if exists contacts_owner_xid');
  await knex.raw('alter table contacts drop column if exists xid');
}
