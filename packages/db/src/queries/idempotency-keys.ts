import type { Knex } from 'knex';

/**
 * The `Idempotency-Key`s members sent with creates, and the answers they got (table
 * idempotency_keys). Every function here runs inside the transaction of the write the key
 * belongs to: the record is written with what it records, or not at all.
 */

/** How long a key is remembered: a retry later than this is a new request. Deleted by the janitor after. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;

/** What a first request with a key answered: enough to answer a retry again. */
export interface IdempotencyRecord {
  /** SHA-256 of the request's method, path and body, to tell a retry from a different request. */
  fingerprint: string;
  status: number;
  /** The contacts the answer held, in order. */
  resultIds: number[];
}

/**
 * Takes the member's key for the rest of the transaction, without waiting: false when another
 * transaction holds it (the same key's first request is still running). A transaction-scoped
 * advisory lock in the one-bigint key space (the e-mail locks use the two-integer one), on a
 * 64-bit hash of member and key; the newline cannot occur in a key, so no two pairs spell alike.
 */
export async function holdIdempotencyKey(trx: Knex.Transaction, memberId: number, key: string): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: Array<{ held: boolean }> }>(
    'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as held',
    [`${memberId}\n${key}`],
  );
  return rows[0]?.held === true;
}

/** The member's unexpired record for this key, if any. */
export async function findIdempotencyRecord(
  trx: Knex.Transaction,
  memberId: number,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const { rows } = await trx.raw<{ rows: Array<{ fingerprint: string; status: number; result_ids: number[] }> }>(
    `select fingerprint, status, result_ids from idempotency_keys
      where member_id = ? and key = ? and expires_at > now()`,
    [memberId, key],
  );
  const row = rows[0];
  return row && { fingerprint: row.fingerprint, status: row.status, resultIds: row.result_ids };
}

/**
 * Records the answer to the member's key, expiring IDEMPOTENCY_KEY_TTL_SECONDS from now. An
 * expired record the janitor has not deleted yet is replaced; false when an unexpired one exists
 * (the caller holds the key, so only a bug could get here: the primary key still keeps one answer).
 */
export async function insertIdempotencyRecord(
  trx: Knex.Transaction,
  memberId: number,
  key: string,
  record: IdempotencyRecord,
): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: unknown[] }>(
    `insert into idempotency_keys (member_id, key, fingerprint, status, result_ids, expires_at)
     values (?, ?, ?, ?, ?::integer[], now() + make_interval(secs => ?))
     on conflict (member_id, key) do update
       set fingerprint = excluded.fingerprint, status = excluded.status, result_ids = excluded.result_ids,
           created_at = excluded.created_at, expires_at = excluded.expires_at
       where idempotency_keys.expires_at <= now()
     returning key`,
    [memberId, key, record.fingerprint, record.status, record.resultIds, IDEMPOTENCY_KEY_TTL_SECONDS],
  );
  return rows.length === 1;
}
