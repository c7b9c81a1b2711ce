import type { Database } from '../connection';
import { type ContactRecord, type Queryable, recordQuery } from './contacts';

/**
 * The change feed's reads. A snapshot (pg_snapshot, in its text form `xmin:xmax:xip,…`) names
 * the transactions whose effects a client has seen; every contacts row and tombstone carries the
 * id of the transaction that wrote it (see the change_feed migration). "Changed since snapshot S"
 * is "written by a transaction not visible in S": `not pg_visible_in_snapshot(xid, S)`. A
 * transaction id below S's xmin is always visible in S, so `xid >= xmin(S)` bounds the scan on the
 * (owner, xid) indexes to the recent changes, whatever the size of the address book.
 */

/** The current snapshot, in text form: the sync token of what the caller is about to read. */
export async function currentSnapshot(db: Queryable): Promise<string> {
  const result = await db.raw<{ rows: Array<{ snapshot: string }> }>('select pg_current_snapshot()::text as snapshot');
  return result.rows[0]!.snapshot;
}

export interface ChangesPage {
  /** The contacts created or changed since the snapshot, in id order, as they are now. */
  records: ContactRecord[];
  /** The ids of contacts deleted since the snapshot, ascending. */
  deletedIds: number[];
  /** The largest id on this page (contact or tombstone), when another page follows. */
  nextAfterId: number | undefined;
}

export interface ChangesQuery {
  ownerId: number;
  /** The snapshot of the client's sync token. */
  since: string;
  /**
   * The snapshot the sync's last page will hand out as the next token (taken at its first page):
   * only changes visible in it are listed. A change after it belongs to the next sync, which
   * lists it (it is not visible in that token); without this bound, a member's contacts written
   * faster than a client read pages gave that client a sync that never reached its last page.
   */
  until: string;
  /** Keyset: only ids above this one (contacts and tombstones share the id sequence). */
  afterId: number;
  limit: number;
}

// Each set is materialised from its (owner, xid) index first, then merged and sorted: ordering by
// id alone could tempt the planner to walk the (owner_id, id) index through the whole book.
// A transaction id from `until`'s xmax on is never visible in it: the index range ends there.
const CHANGED_IDS_SQL = `
  with changed as materialized (
    select id, false as deleted from contacts
     where owner_id = :owner and xid >= pg_snapshot_xmin(cast(:since as pg_snapshot))
       and xid < pg_snapshot_xmax(cast(:until as pg_snapshot))
       and not pg_visible_in_snapshot(xid, cast(:since as pg_snapshot))
       and pg_visible_in_snapshot(xid, cast(:until as pg_snapshot)) and id > :after
  ), removed as materialized (
    select contact_id as id, true as deleted from contact_tombstones
     where member_id = :owner and xid >= pg_snapshot_xmin(cast(:since as pg_snapshot))
       and xid < pg_snapshot_xmax(cast(:until as pg_snapshot))
       and not pg_visible_in_snapshot(xid, cast(:since as pg_snapshot))
       and pg_visible_in_snapshot(xid, cast(:until as pg_snapshot)) and contact_id > :after
  )
  select id, deleted from changed union all select id, deleted from removed
  order by id
  limit :limit`;

/**
 * One page of the changes since a snapshot: contacts and tombstones merged in id order, `limit`
 * ids in all. Both reads share one repeatable-read snapshot: a delete is atomic with its
 * tombstone, so within it an id is a live contact or a tombstone, never both, and no page holds
 * one id in both lists. (Across pages, a contact sent in `data` and deleted while the client
 * pages is reported deleted by the next sync, since the deleting transaction is not in the
 * snapshot the next token carries.)
 */
export async function listContactChanges(db: Database, query: ChangesQuery): Promise<ChangesPage> {
  return db.transaction(
    async (trx) => {
      const result = await trx.raw<{ rows: Array<{ id: number; deleted: boolean }> }>(CHANGED_IDS_SQL, {
        owner: query.ownerId,
        since: query.since,
        until: query.until,
        after: query.afterId,
        limit: query.limit + 1,
      });
      const rows = result.rows.slice(0, query.limit);
      const hasMore = result.rows.length > query.limit;
      const deletedIds = rows.filter((row) => row.deleted).map((row) => row.id);
      const changedIds = rows.filter((row) => !row.deleted).map((row) => row.id);
      const records =
        changedIds.length === 0
          ? []
          : await recordQuery(trx).where('c.owner_id', query.ownerId).whereIn('c.id', changedIds).orderBy('c.id');
      return { records, deletedIds, nextAfterId: hasMore ? rows.at(-1)?.id : undefined };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** Whether PostgreSQL accepts a text as a pg_snapshot (the token decoder checks first; this is the proof). */
export async function isValidSnapshot(db: Queryable, snapshot: string): Promise<boolean> {
  try {
    await db.raw('select ?::pg_snapshot', [snapshot]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Past a sync token's lifetime, a tombstone is kept this much longer: a tombstone is stamped when
 * the delete ran, the token when its snapshot was taken, so a delete in a transaction still open
 * when a token was issued is stamped earlier than that token. A day covers any transaction this
 * service runs (and clock skew between the API's hosts and the database).
 */
export const TOMBSTONE_RETENTION_MARGIN_SECONDS = 86_400;
