import {
  type ContactRecord,
  type Database,
  findContactRecords,
  findIdempotencyRecord,
  holdIdempotencyKey,
  insertIdempotencyRecord,
} from '@contacts/db';
import type { Knex } from 'knex';

/**
 * Writes done at most once per `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header):
 * the write and the record of its answer commit together in one transaction, so there is never
 * a create without its key record nor a key record without its create. A write the rules refuse
 * rolls back with its record unwritten: only completed writes are remembered, and the client may
 * correct the request and send it again with the same key.
 */

/** A request that carries a key: whose it is, the key, and the fingerprint of the request. */
export interface KeyedRequest {
  memberId: number;
  key: string;
  fingerprint: string;
}

/** What a completed write answered, as much as a replay needs. */
export interface RememberedAnswer {
  status: number;
  /** The contacts of the answer, in order. */
  resultIds: number[];
}

export type KeyedOutcome<T> =
  /** First request with the key: written now. */
  | { kind: 'written'; value: T }
  /** The same request again: what it answered then. Nothing was written. */
  | { kind: 'replay'; answer: RememberedAnswer }
  /** The key's first request is still running (the draft's 409). Nothing was written. */
  | { kind: 'in_progress' }
  /** The key was used with a different request (the draft's 422). Nothing was written. */
  | { kind: 'key_reused' };

/**
 * Runs `write` once for the member's key: the first time in a transaction that also records
 * `answerOf(result)`; afterwards, while the record lasts, only says what was answered. The key is
 * held (without waiting) before it is looked up, so of two requests with one key at once exactly
 * one writes and the other is told the first is in progress.
 */
export async function writeOncePerKey<T>(
  db: Database,
  request: KeyedRequest,
  write: (trx: Knex.Transaction) => Promise<T>,
  answerOf: (value: T) => RememberedAnswer,
): Promise<KeyedOutcome<T>> {
  return db.transaction(async (trx): Promise<KeyedOutcome<T>> => {
    if (!(await holdIdempotencyKey(trx, request.memberId, request.key))) return { kind: 'in_progress' };
    const remembered = await findIdempotencyRecord(trx, request.memberId, request.key);
    if (remembered) {
      if (remembered.fingerprint !== request.fingerprint) return { kind: 'key_reused' };
      return { kind: 'replay', answer: { status: remembered.status, resultIds: remembered.resultIds } };
    }
    const value = await write(trx);
    const recorded = await insertIdempotencyRecord(trx, request.memberId, request.key, {
      fingerprint: request.fingerprint,
      ...answerOf(value),
    });
    // Unreachable while the key is held; if it ever happens, the write must not stay without its record.
    if (!recorded) throw new Error('An unexpired idempotency record appeared while its key was held.');
    return { kind: 'written', value };
  });
}

/**
 * The contacts a remembered answer named, as they are now, in its order: undefined for one
 * deleted since. A replay answers the current state (and ETag), not a copy kept from then, so
 * that no contact data outlives its contact in the key records.
 */
export async function contactsOfAnswer(
  db: Database,
  memberId: number,
  answer: RememberedAnswer,
): Promise<Array<ContactRecord | undefined>> {
  const records = await findContactRecords(db, memberId, answer.resultIds);
  const byId = new Map(records.map((record) => [record.id, record]));
  return answer.resultIds.map((id) => byId.get(id));
}
