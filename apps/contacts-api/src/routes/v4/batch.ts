import { type ContactRecord, type Database, lockOwnedContacts } from '@contacts/db';
import {
  type BatchOperationV4,
  contactBatchOperationV4,
  contactBatchResultV4,
  contactBatchV4,
  MAX_BATCH_OPERATIONS,
  readBatchOperations,
  toContactV4,
  v4InputToChanges,
} from '@contacts/schemas';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { createContact, createContacts, deleteOwnedContact, updateContactFields } from '../../domain/contacts';
import { DomainError } from '../../domain/errors';
import { contactsOfAnswer, writeOncePerKey } from '../../domain/idempotent-writes';
import { parseBody } from '../../http/body';
import { validationFailed } from '../../http/errors';
import { etagOf, ifMatchSatisfied, jsonWithEtag } from '../../http/etag';
import { koaGuard } from '../../http/guard';
import {
  asCreated,
  IDEMPOTENT_REPLAYED_HEADER,
  keyRefusal,
  readIdempotencyKey,
  requestFingerprint,
} from '../../http/idempotency-key';
import { callerOf, type RouteDependencies } from '../context';
import { IDEMPOTENCY_ANSWERS, IDEMPOTENCY_KEY_PARAMETER, REPLAYED_HEADER, v4Error } from '../contract-parts';
import { batchRefusal } from './batch-refusal';

/**
 * One operation's result: a created or updated contact as its JSON text with its etag (serialised
 * once, for its hash and the body), or what a delete did.
 */
type BatchResult = { id: number; json: string } | { id: number; deleted: boolean };

/** Answers the results in order, the contacts' texts as they are. */
function sendResults(ctx: Context, results: readonly BatchResult[]): void {
  const data = results.map((result) => ('json' in result ? result.json : JSON.stringify(result)));
  ctx.type = 'application/json';
  ctx.body = `{"data":[${data.join(',')}]}`;
}

/**
 * A remembered answer's id for a delete that found nothing to delete (`"deleted":false`): no
 * contact (ids start at 1). Its replay takes the id from the request, which is the first one's.
 */
const NOTHING_DELETED = 0;

const rememberedIdOf = (result: BatchResult) => ('deleted' in result && !result.deleted ? NOTHING_DELETED : result.id);

/**
 * POST /v4/contacts/batch: up to 200 creates, updates and deletes, all or nothing. Every
 * operation is validated first (one 422 lists the problems of all of them); then they run in
 * order, in one transaction, through the same domain functions as the single writes (each of
 * which nests as a savepoint), so the rules are those of POST and DELETE /v4/contacts. The first
 * operation the rules refuse aborts the batch, and nothing is written. It creates contacts, so it
 * takes an Idempotency-Key as POST /v4/contacts does: a repeated batch is answered, not run again.
 */
export function batchRoutes({ db, publicUrl, write, rateLimit }: RouteDependencies): Router {
  const router = new Router();
  const serialize = (record: ContactRecord) => toContactV4(record, { publicUrl });
  // The contact with the etag GET /v4/contacts/{id} would send for it, for the mirror's next if_match.
  const resultOf = (record: ContactRecord): BatchResult => ({
    id: record.id,
    json: jsonWithEtag(JSON.stringify(serialize(record))),
  });

  const batch = koaGuard({
    operationId: 'batchContacts',
    summary: `Up to ${MAX_BATCH_OPERATIONS} creates, updates and deletes, all or nothing`,
    scope: 'contacts:write',
    headers: [IDEMPOTENCY_KEY_PARAMETER],
    body: contactBatchV4,
    // The guard checks the envelope; readBatchOperations() reads each operation, so that one 422
    // names every invalid operation by its index. The document shows what an operation holds.
    requestBody: {
      'application/json': z.object({
        operations: z.array(contactBatchOperationV4).min(1).max(MAX_BATCH_OPERATIONS),
      }),
    },
    responses: {
      200: {
        description:
          'One result per operation, in order: the contact for a create or an update, with its `etag` (the ETag header GET /v4/contacts/{id} answers for it: the next `if_match`); `{"id","deleted":true}` for a delete, `"deleted":false` when the caller had no such contact (already deleted: nothing to do; with `if_match`, 412). For a repeated Idempotency-Key, those of its first request as they are now: each contact as it is, `{"id","deleted":true}` for one no longer there, and `"deleted":false` again for a delete that found nothing the first time.',
        headers: REPLAYED_HEADER,
        schema: contactBatchResultV4,
      },
      400: IDEMPOTENCY_ANSWERS[400],
      409: IDEMPOTENCY_ANSWERS[409],
      412: v4Error(
        "An update's or a delete's if_match no longer matches the contact (or it no longer exists); nothing was written. `fields` names the first such operation (`operations[1].if_match`).",
      ),
      422: v4Error(
        `An invalid operation; \`fields\` keys name it, e.g. \`operations[3].contact.email\`. Nothing was written. ${IDEMPOTENCY_ANSWERS[422]}`,
      ),
    },
  });
  router.post('/v4/contacts/batch', write, rateLimit, parseBody(), batch.middleware, async (ctx) => {
    const key = readIdempotencyKey(ctx);
    const operations = readBatchOperations(batch.of(ctx).body.operations);
    if (!operations.ok) throw validationFailed(operations.fields);
    const memberId = callerOf(ctx).memberId;
    ctx.set('Cache-Control', 'no-store');
    if (key === undefined) {
      sendResults(ctx, await db.transaction((trx) => runAll(trx, memberId, operations.value)));
      return;
    }
    const outcome = await writeOncePerKey(
      db,
      { memberId, key, fingerprint: requestFingerprint(ctx, fingerprintInput(operations.value)) },
      (trx) => runAll(trx, memberId, operations.value),
      (results) => ({ status: 200, resultIds: results.map(rememberedIdOf) }),
    );
    switch (outcome.kind) {
      case 'written':
        sendResults(ctx, outcome.value);
        return;
      case 'replay': {
        const records = await contactsOfAnswer(db, memberId, outcome.answer);
        ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
        ctx.status = outcome.answer.status;
        // The same request as the first (its fingerprint matched), so operation i answered result i.
        sendResults(
          ctx,
          records.map((record, index): BatchResult => {
            if (record) return resultOf(record);
            const id = outcome.answer.resultIds[index] as number;
            const operation = operations.value[index] as BatchOperationV4 & { id: number };
            return id === NOTHING_DELETED ? { id: operation.id, deleted: false } : { id, deleted: true };
          }),
        );
        return;
      }
      default:
        throw keyRefusal(outcome.kind);
    }
  });

  /** Every operation, in order, in the caller's transaction; the first one refused aborts it. */
  async function runAll(trx: Database, memberId: number, all: readonly BatchOperationV4[]): Promise<BatchResult[]> {
    // The contacts it updates or deletes are locked first, in id order (as every writer of several
    // contacts locks them): in the operations' order, two batches naming the same contacts in
    // different orders deadlocked (answered 500).
    const named = all.flatMap((operation) => (operation.op === 'create' ? [] : [operation.id]));
    await lockOwnedContacts(trx, memberId, { ids: named });
    const done: BatchResult[] = [];
    for (let index = 0; index < all.length; ) {
      const creates = createsFrom(all, index);
      if (creates.length > 1 && (await createTogether(trx, memberId, creates, done))) {
        index += creates.length;
        continue;
      }
      // One at a time: any other operation, or creates that a rule refused together, so that
      // the refusal names its operation.
      for (const operation of creates.length > 1 ? creates : [all[index] as BatchOperationV4]) {
        try {
          done.push(await apply(trx, memberId, operation));
        } catch (error) {
          throw error instanceof DomainError ? batchRefusal(error, index) : error;
        }
        index += 1;
      }
    }
    return done;
  }

  /**
   * A run of creates written by one statement (createContacts), in a savepoint: when a rule
   * refuses one of them, nothing of the run stays and false says to replay it one by one.
   */
  async function createTogether(
    trx: Database,
    memberId: number,
    creates: Array<Extract<BatchOperationV4, { op: 'create' }>>,
    done: BatchResult[],
  ): Promise<boolean> {
    const contacts = creates.map((operation) => v4InputToChanges(operation.contact));
    try {
      const records = await trx.transaction((savepoint) => createContacts(savepoint, memberId, contacts));
      done.push(...records.map(resultOf));
      return true;
    } catch (error) {
      if (error instanceof DomainError) return false;
      throw error;
    }
  }

  async function apply(trx: Database, memberId: number, operation: BatchOperationV4): Promise<BatchResult> {
    switch (operation.op) {
      case 'create': {
        const changes = v4InputToChanges(operation.contact);
        return resultOf(await createContact(trx, memberId, changes));
      }
      case 'update': {
        const changes = v4InputToChanges(operation.contact);
        return resultOf(await updateContactFields(trx, memberId, operation.id, changes, ifMatchOf(operation)));
      }
      case 'delete': {
        return {
          id: operation.id,
          deleted: await deleteOwnedContact(trx, memberId, operation.id, ifMatchOf(operation)),
        };
      }
    }
  }

  /** An operation's if_match as the precondition the domain checks under the contact's lock. */
  function ifMatchOf(operation: { ifMatch?: string }) {
    const { ifMatch } = operation;
    if (ifMatch === undefined) return {};
    return { precondition: (current: ContactRecord) => ifMatchSatisfied(ifMatch, etagOf(serialize(current))) };
  }

  return router;
}

/**
 * The operations as the batch's fingerprint takes them: as validated, a create's null fields left
 * out (they create what absent ones do); an update's kept, as null clears and absent keeps.
 */
function fingerprintInput(operations: readonly BatchOperationV4[]): BatchOperationV4[] {
  return operations.map((operation) =>
    operation.op === 'create' ? { op: 'create', contact: asCreated(operation.contact) } : operation,
  );
}

/** The creates that follow one another from `start` on (none when the operation there is no create). */
function createsFrom(
  operations: readonly BatchOperationV4[],
  start: number,
): Array<Extract<BatchOperationV4, { op: 'create' }>> {
  const creates: Array<Extract<BatchOperationV4, { op: 'create' }>> = [];
  for (let index = start; index < operations.length; index += 1) {
    const operation = operations[index] as BatchOperationV4;
    if (operation.op !== 'create') break;
    creates.push(operation);
  }
  return creates;
}
